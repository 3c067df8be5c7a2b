"""eagle_generate advances its drafted count by gamma each round, not by the k drafts made (fewer near max_gen_len)."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        drafted, accepted = drafted + k, accepted + n""",
    """        drafted, accepted = drafted + gamma, accepted + n""",
)]
NAMED = "the drafted count advanced by gamma instead of by the drafts made"
