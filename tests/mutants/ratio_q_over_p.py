"""Ratio upside down: a draft is accepted with probability min(1, q/p) instead of min(1, p/q)."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("rejected = u * q >= p", "rejected = u * p >= q")]
SLOW = "one of the longest verifier mutants, 6-13 s in CI: its exercise keeps others by default"
