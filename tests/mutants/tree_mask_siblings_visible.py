"""The tree mask lets siblings (nodes with the same parent) see each other."""
EXERCISE = "tree_attention"
MODULE = "trees"
PATCHES = [(
    "    mask = torch.eye(count, dtype=torch.bool)\n",
    "    mask = torch.tensor([[a == b for b in parents] for a in parents], dtype=torch.bool).reshape(count, count)\n",
)]
