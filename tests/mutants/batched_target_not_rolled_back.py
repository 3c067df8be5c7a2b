"""The target's cache keeps the rejected drafts' columns unmasked: later tokens attend to them."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("        target_lane.reject(k, rejected_idx, most_kept)\n", "")]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
