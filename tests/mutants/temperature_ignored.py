"""Temperature ignored: the logits are not divided by it."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [(
    "        logits = logits.to(probability_dtype(logits.dtype)) / self.temperature",
    "        logits = logits.to(probability_dtype(logits.dtype))",
)]
NAMED = "the temperature is left out"
