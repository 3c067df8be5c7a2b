"""The target's rows shifted by one: p_i is read one position later (after draft i)."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "forward(target, ids, end + k, target_cache, rows=k + 1)",
    "forward(target, ids, end + k + 1, target_cache, rows=k + 1)",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
