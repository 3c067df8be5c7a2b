"""grow_tree returns each kept node's parent as its index among all the nodes made, not among the kept ones."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """    return [renumber[parents[node]] if parents[node] >= 0 else -1 for node in kept], tokens[kept]""",
    """    return [parents[node] for node in kept], tokens[kept]""",
)]
NAMED = "the parents are not renumbered among the kept nodes"
