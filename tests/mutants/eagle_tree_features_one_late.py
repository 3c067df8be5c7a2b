"""The tree loop stores the target's features one position late: the head pairs each token with the feature of the position before the one it should."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        true_features[:, end - 1:end + n] = features[:, rows]
""",
    """        true_features[:, end:end + n + 1] = features[:, rows]
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
