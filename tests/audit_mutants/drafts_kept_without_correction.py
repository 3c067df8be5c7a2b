"""After a rejection the token comes from p instead of the residual max(p − q, 0)
(skip_sample_adjustment=True): the drafter's likely tokens are over-represented."""
EXERCISES = ("audit",)
MODULE = "speculative"
PATCHES = [(
    "    skip_sample_adjustment: bool = False,",
    "    skip_sample_adjustment: bool = True,",
)]
