"""A row that emitted its end token keeps emitting while other rows run."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [("            if not running[b]:\n                continue\n", "")]
