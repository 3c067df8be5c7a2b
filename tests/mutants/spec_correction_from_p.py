"""After a rejection the correction is sampled from p instead of the residual max_fn(p - q)."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "        if skip_sample_adjustment:",
    "        if True:",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
