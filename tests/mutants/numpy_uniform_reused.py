"""The acceptance uniform reused (numpy): the correction is the inverse CDF of the u that rejected."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [
    ("        if np.random.random() * q < p:",
     "        u = np.random.random()\n        if u * q < p:"),
    ("emitted.append(int(np.random.choice(vocab_size, p=residual / residual.sum())))",
     "emitted.append(min(int(np.searchsorted(np.cumsum(residual / residual.sum()), u)), vocab_size - 1))"),
]
