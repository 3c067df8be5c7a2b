"""Ratio upside down (numpy): a draft is accepted with probability min(1, q/p)."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [("if np.random.random() * q < p:", "if np.random.random() * p < q:")]
