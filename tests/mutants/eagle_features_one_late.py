"""The target's features are stored one position late: the head pairs each token with the feature of the position before the one it should."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        true_features[:, end - 1:end + n] = features[:, :n + 1]  # the accepted positions' features
""",
    """        true_features[:, end:end + n + 1] = features[:, :n + 1]
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
