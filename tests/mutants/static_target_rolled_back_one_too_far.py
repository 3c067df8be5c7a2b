"""After a rejection the target's write position goes back one slot too far: off by one against the positions fed."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "    target_model.cache.crop(-(gamma - n))  # crop(0) is allowed; a positive count is not",
    "    target_model.cache.crop(-(gamma - n + (n < gamma)))",
)]
