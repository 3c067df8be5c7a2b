"""The drafts past the length limit are verified and counted as well: the output overshoots max_gen_len."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "        k = min(gamma, total_len - end - 1)",
    "        k = gamma",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
