"""The drafter drafts greedily under sampling while its sampled law is still used as q
(transformers PR #30778, reverted in #33534)."""
EXERCISES = ("audit",)
MODULE = "speculative"
PATCHES = [(
    "        ids[0, end + i] = processor.sample(q)  # a device-side copy, no host sync",
    "        ids[0, end + i] = q.argmax()",
)]
