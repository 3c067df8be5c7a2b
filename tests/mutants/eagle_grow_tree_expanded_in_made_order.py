"""grow_tree expands a level's chosen nodes in the order they were made, not in topk's order (most confident
first): the next level's nodes come in another order, so the kept tree is numbered differently."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """        best = child_scores.topk(min(top_k, child_scores.numel())).indices
""",
    """        best = child_scores.topk(min(top_k, child_scores.numel())).indices.sort().values
""",
)]
NAMED = "a level's chosen nodes expanded in the order they were made"
