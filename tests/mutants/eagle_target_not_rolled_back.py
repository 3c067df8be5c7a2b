"""The target's cache keeps the rejected drafts: the next round is verified against a context that holds them."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        roll_back(target_cache, end - 1)
""",
    "",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
