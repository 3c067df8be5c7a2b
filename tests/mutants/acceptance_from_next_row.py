"""Rows misaligned: draft i is scored with the target row i + 1 (logits shifted by one)."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("p = target_dists[:k].gather", "p = target_dists[1:].gather")]
SLOW = "one of the longest verifier mutants, 6-8 s in CI: its exercise keeps others by default"
