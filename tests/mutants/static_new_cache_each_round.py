"""A new StaticCache every round instead of moving the write position back."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "    target_model.cache.crop(-(gamma - n))  # crop(0) is allowed; a positive count is not",
    "    target_model.cache = StaticCache(config=target_model.model.config, max_cache_len=target_model.length)",
)]
