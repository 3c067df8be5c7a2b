"""The target's cache keeps the rejected drafts: the next round is verified against a context that holds them."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        roll_back(target_cache, end - 1)
""",
    "",
)]
