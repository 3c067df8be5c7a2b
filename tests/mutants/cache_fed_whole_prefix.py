"""The cache fed the whole prefix again at every step (correct output, wasted work)."""
EXERCISE = "autoregressive_generate"
MODULE = "autoregressive"
PATCHES = [(
    "        seen = cache.get_seq_length() if use_cache else 0\n",
    "        seen = 0\n        cache = DynamicCache() if use_cache else None\n",
)]
