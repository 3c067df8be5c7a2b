"""The nodes to expand chosen by their own probability under their parent's q, not by the product along their path: a deep node looks as sure as the root's children."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """        child_scores = (level_scores[:, None] + child_scores).flatten()
""",
    """        own = child_scores.flatten()
        child_scores = (level_scores[:, None] + child_scores).flatten()
""",
), (
    """        best = child_scores.topk(min(top_k, child_scores.numel())).indices
""",
    """        best = own.topk(min(top_k, own.numel())).indices
""",
)]
