"""Correction from the wrong row: the residual after a rejection at i uses the target row i + 1."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("max_fn(target_dists[:k] - proposal_dists)", "max_fn(target_dists[1:] - proposal_dists)")]
