"""Position ids counted over the flattened tree (node i at len(text) + i) instead of by depth."""
EXERCISE = "tree_attention"
MODULE = "trees"
PATCHES = [("    return mask, depths\n", "    return mask, torch.arange(1, count + 1)\n")]
NAMED = "each node's place in the flattened tree"
