"""The target's cache cropped one token too far: it is fed the last accepted token again."""
EXERCISE = "kv_cache"
MODULE = "speculative"
PATCHES = [(
    """        for cache in (drafter_cache, target_cache):
            roll_back(cache, end - 1)""",
    """        roll_back(drafter_cache, end - 1)
        roll_back(target_cache, end - 2)""",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
