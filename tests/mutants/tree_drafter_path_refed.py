"""The drafter's cache is cut back to the old text after a round, so the accepted path is fed to it again (exact output, but not only the rejected branches leave the cache)."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [(
    "keep_positions(drafter_cache, torch.cat([kept, end - 1 + path[: min(n, k - 1)]]))",
    "keep_positions(drafter_cache, kept)",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
