"""When every draft is accepted the drafter is not fed its last draft: it falls one position behind."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    """    if n == gamma:
        draft_model.step(ids, end + gamma - 1, 1)
    else:
        draft_model.cache.crop(-(gamma - 1 - n))""",
    """    if n < gamma:
        draft_model.cache.crop(-(gamma - 1 - n))""",
)]
