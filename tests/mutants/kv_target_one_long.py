"""The target's cache cropped one token short: it keeps the rejected draft in place of the correction."""
EXERCISE = "kv_cache"
MODULE = "speculative"
PATCHES = [(
    """        for cache in (drafter_cache, target_cache):
            roll_back(cache, end - 1)""",
    """        roll_back(drafter_cache, end - 1)
        roll_back(target_cache, end)""",
)]
