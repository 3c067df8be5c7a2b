"""eagle_tree_generate keeps the accepted nodes at positions end + row, one past their place end − 1 + row, in the target's cache."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        keep_positions(target_cache, torch.cat([torch.arange(end, device=device), end - 1 + rows[1:]]))""",
    """        keep_positions(target_cache, torch.cat([torch.arange(end, device=device), end + rows[1:]]))""",
)]
NAMED = "keep_positions given positions one off"
