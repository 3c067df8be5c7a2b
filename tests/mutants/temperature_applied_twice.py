"""The temperature applied twice: the logits divided by T, then by T again (softmax at T²)."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [(
    "        logits = logits.to(probability_dtype(logits.dtype)) / self.temperature",
    "        logits = logits.to(probability_dtype(logits.dtype)) / self.temperature / self.temperature",
)]
NAMED = "divided by the temperature twice"
