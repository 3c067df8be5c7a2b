"""The drafter's write position is never moved back: its rejected drafts stay where the next round writes."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    """    else:
        draft_model.cache.crop(-(gamma - 1 - n))""",
    "",
)]
