"""Residual of q − p: the correction is drawn from norm(max(0, q − p)), the drafter's excess."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("max_fn(target_dists[:k] - proposal_dists)", "max_fn(proposal_dists - target_dists[:k])")]
SLOW = "one of the longest verifier mutants, 6-13 s in CI: its exercise keeps others by default"
