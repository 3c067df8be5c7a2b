"""Depths counted from 0: a child of the root gets depth 0, one position too early."""
EXERCISE = "tree_attention"
MODULE = "trees"
PATCHES = [("    depths = torch.ones(count, dtype=torch.long)\n", "    depths = torch.zeros(count, dtype=torch.long)\n")]
NAMED = "depths counted from 0"
