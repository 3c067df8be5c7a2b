"""The tree mask marks each node's parent but not its other ancestors."""
EXERCISE = "tree_attention"
MODULE = "trees"
PATCHES = [("mask[i] |= mask[parent]", "mask[i, parent] = True")]
NAMED = "each node's parent marked, not its other ancestors"
