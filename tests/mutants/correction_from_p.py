"""Correction from p: after a rejection the token is drawn from p_i instead of the residual."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("max_fn(target_dists[:k] - proposal_dists)", "target_dists[:k]")]
