"""No random acceptance: a draft is accepted only when p ≥ q, never with probability p/q below that."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("rejected = u * q >= p", "rejected = q > p")]
