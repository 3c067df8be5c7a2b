"""grow_tree returns its kept nodes in confidence order (argsort's), not back in the order they were made."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """    kept = kept[scores[kept] > -torch.inf].sort().values.tolist()  # back in the order made""",
    """    kept = kept[scores[kept] > -torch.inf].tolist()""",
)]
NAMED = "kept nodes returned in confidence order"
