"""A rejected child is removed, but the residual is not renormalised: child i is accepted with probability p(c_i) instead of p(c_i) / S_i."""
EXERCISE = "deterministic_children"
MODULE = "eagle"
PATCHES = [(
    """    accepted = u * left < mass
""",
    """    accepted = u < mass
""",
)]
FIRST_HINT = "the acceptance was not renormalised"
