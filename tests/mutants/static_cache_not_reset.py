"""The kept cache is not emptied at a new call's prefill: its write position starts where the last call left it."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    """        self.cache.reset()
        self.sampling = (processor, stop_ids)""",
    """        self.sampling = (processor, stop_ids)""",
)]
