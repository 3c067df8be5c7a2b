"""eagle_tree_generate grows every tree depth deep, not min(depth, tokens left − 1): the last rounds run past max_gen_len."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        k = min(depth, total_len - end - 1)
        parents, nodes = [], ids.new_zeros(0)""",
    """        k = depth
        parents, nodes = [], ids.new_zeros(0)""",
)]
NAMED = "a tree depth not capped at min(depth, tokens left − 1)"
