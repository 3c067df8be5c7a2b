"""Rejected branches left in the target's cache: it is cropped like a chain's, keeping the first n nodes in level order instead of the accepted path."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [(
    "keep_positions(target_cache, torch.cat([kept, end - 1 + path[:n]]))",
    "keep_positions(target_cache, torch.arange(end + n, device=device))",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
