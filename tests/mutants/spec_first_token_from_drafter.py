"""With first_target, the first token is sampled from the drafter instead of the target."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "forward(target, ids, end, target_cache, rows=1)",
    "forward(drafter, ids, end, drafter_cache, rows=1)",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
