"""A row that emitted its end token keeps emitting while other rows run."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("            if not running[b]:\n                continue\n", "")]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
