"""A greedy processor that writes into the logits it is given."""
from solutions.sampling import (  # noqa: F401  (the others are fine)
    MultinomialProcessor,
    NucleusProcessor,
    TopKNucleusProcessor,
    TopKProcessor,
)


class GreedyProcessor:
    def __init__(self, temperature=1.0):
        pass

    def __call__(self, logits):
        best = logits.argmax(-1, keepdim=True)
        return logits.zero_().scatter_(-1, best, 1.0)

    def sample(self, probs):
        return probs.argmax(-1)
