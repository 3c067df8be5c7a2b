"""The prefix fed again at every forward: a fresh cache each time (right output, no cache use)."""
EXERCISE = "kv_cache"
MODULE = "speculative"
PATCHES = [(
    "    seen = cache.get_seq_length() if cache is not None else 0\n",
    "    seen = 0\n    cache = DynamicCache() if cache is not None else None\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
