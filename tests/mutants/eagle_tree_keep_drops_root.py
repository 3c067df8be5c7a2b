"""eagle_tree_generate keeps the text but its last token, then the path, in the target's cache: the round's root
(row 0, at position end − 1) is dropped, so the next round's forward finds the cache one short."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        keep_positions(target_cache, torch.cat([torch.arange(end, device=device), end - 1 + rows[1:]]))""",
    """        keep_positions(target_cache, torch.cat([torch.arange(end - 1, device=device), end - 1 + rows[1:]]))""",
)]
NAMED = "the target's cache left short after a round"
