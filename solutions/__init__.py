"""The reference implementation of every exercise (same names as ``lessons``)."""
from solutions.autoregressive import autoregressive_generate
from solutions.sampling import (
    GreedyProcessor,
    LogitsProcessor,
    MultinomialProcessor,
    NucleusProcessor,
    TopKNucleusProcessor,
    TopKProcessor,
)

__all__ = [
    "GreedyProcessor", "LogitsProcessor", "MultinomialProcessor", "NucleusProcessor",
    "TopKNucleusProcessor", "TopKProcessor", "autoregressive_generate",
]
