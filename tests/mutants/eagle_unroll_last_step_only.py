"""The loss is the last step's alone, not the mean over the steps: the earlier steps, EAGLE-1's
among them, are not trained."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """        total = total + eagle_loss(predicted, features[:, step + 1:], logits, target_logits[:, step + 1:],
                                   feature_weight, token_weight)
    return total / steps
""",
    """        total = eagle_loss(predicted, features[:, step + 1:], logits, target_logits[:, step + 1:],
                           feature_weight, token_weight)
    return total
""",
)]
NAMED = "the last step's loss alone, where the mean over the steps is meant"
