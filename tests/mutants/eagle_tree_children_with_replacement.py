"""The tree's children verified with replacement: each against p itself, and the final token drawn from p, rejected children included."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """    left = target_dist.sum() - torch.cumsum(mass, 0) + mass  # [m]: S_i, the mass not yet removed
""",
    """    left = target_dist.sum().expand(m)  # every child against the whole of p
""",
), (
    """    rest = max_fn(target_dist.index_fill(0, children, 0.0))  # r_m: p without the children
""",
    """    rest = max_fn(target_dist)
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
