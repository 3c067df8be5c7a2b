"""The tree mask transposed: row i lists the nodes that see node i (its descendants), not its ancestors."""
EXERCISE = "tree_attention"
MODULE = "trees"
PATCHES = [("    return mask, depths\n", "    return mask.T.contiguous(), depths\n")]
NAMED = "the mask transposed"
