"""The drafter's cache is never rolled back: rejected drafts stay in it."""
EXERCISE = "kv_cache"
MODULE = "speculative"
PATCHES = [(
    """        for cache in (drafter_cache, target_cache):
            roll_back(cache, end - 1)""",
    """        roll_back(target_cache, end - 1)""",
)]
