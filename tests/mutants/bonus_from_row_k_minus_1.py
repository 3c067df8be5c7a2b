"""Bonus from the wrong row: when all drafts are accepted the bonus comes from p_(k−1), not p_k."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("target_dists[k:]])", "target_dists[k - 1 : k]])")]
