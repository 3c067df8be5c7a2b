"""eagle_generate crops the target's cache one token too short after each round: it then lacks the token before the round's last one."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        end += min(n, first_stop) + 1
        roll_back(target_cache, end - 1)""",
    """        end += min(n, first_stop) + 1
        roll_back(target_cache, end - 2)""",
)]
NAMED = "the target's cache cropped one too short"
