"""The children are removed from the residual while they are tried, but the token after the last rejection is drawn from p itself, the rejected children included."""
EXERCISE = "deterministic_children"
MODULE = "eagle"
PATCHES = [(
    """    rest = max_fn(target_dist.index_fill(0, children, 0.0))  # r_m: p without the children
""",
    """    rest = max_fn(target_dist)
""",
)]
