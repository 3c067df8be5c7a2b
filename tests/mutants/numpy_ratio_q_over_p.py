"""Ratio upside down (numpy): a draft is accepted with probability min(1, q/p)."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [("if np.random.random() * q < p:", "if np.random.random() * p < q:")]
SLOW = "one of the longest verifier mutants, 6-13 s in CI: its exercise keeps others by default"
