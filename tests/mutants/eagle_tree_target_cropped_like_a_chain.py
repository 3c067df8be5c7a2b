"""The target's cache after a tree round cropped as a chain's: it keeps the first nodes in level order, not the accepted path."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        keep_positions(target_cache, torch.cat([torch.arange(end, device=device), end - 1 + rows[1:]]))
""",
    """        roll_back(target_cache, end + n)
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
