"""walk_deterministic_tree draws the token after an accepted leaf from the leaf's parent's row of p, not the leaf's."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """    return path, sample(p[row])""",
    """    return path, sample(p[path[-2] if len(path) > 1 else 0])""",
)]
NAMED = "a leaf's bonus drawn from its parent's row of p"
