"""The feature loss is the mean squared error, not smooth L1: large feature errors weigh quadratically."""
EXERCISE = "eagle_loss"
MODULE = "eagle"
PATCHES = [(
    """    feature_loss = nn.functional.smooth_l1_loss(predicted, features.detach())
""",
    """    feature_loss = nn.functional.mse_loss(predicted, features.detach())
""",
)]
NAMED = "the mean squared error where smooth L1 is meant"
