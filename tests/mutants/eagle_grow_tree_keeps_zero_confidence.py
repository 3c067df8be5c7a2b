"""grow_tree keeps nodes of confidence 0 (tokens the processor gives no mass) among the total most confident."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """    kept = kept[scores[kept] > -torch.inf].sort().values.tolist()  # back in the order made""",
    """    kept = kept.sort().values.tolist()  # back in the order made""",
)]
NAMED = "kept nodes of confidence 0 among the total most confident"
