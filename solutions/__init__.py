"""The reference implementation of every exercise (same names as ``lessons``)."""
from solutions.autoregressive import autoregressive_generate
from solutions.batched import batched_speculative_generate, batched_speculative_sampling
from solutions.distill import distillation_loss, expected_acceptance, on_policy_batch, train_drafter
from solutions.fast import fast_autoregressive_generate, fast_speculative_generate
from solutions.ngram import NGramStorage, PromptLookup, ngram_assisted_speculative_generate
from solutions.residual import max_fn
from solutions.sampling import (
    GreedyProcessor,
    LogitsProcessor,
    MultinomialProcessor,
    NucleusProcessor,
    TopKNucleusProcessor,
    TopKProcessor,
)
from solutions.speculative import speculative_generate
from solutions.trees import multi_draft_sampling, tree_layout, tree_speculative_generate, typical_acceptance
from solutions.verification import greedy_match, speculative_decoding_verify, speculative_sampling

__all__ = [
    "GreedyProcessor", "LogitsProcessor", "MultinomialProcessor", "NucleusProcessor",
    "TopKNucleusProcessor", "TopKProcessor", "autoregressive_generate",
    "max_fn", "speculative_decoding_verify", "speculative_sampling", "greedy_match",
    "speculative_generate",
    "NGramStorage", "PromptLookup", "ngram_assisted_speculative_generate",
    "multi_draft_sampling", "typical_acceptance", "tree_layout", "tree_speculative_generate",
    "fast_speculative_generate", "fast_autoregressive_generate",
    "batched_speculative_sampling", "batched_speculative_generate",
    "expected_acceptance", "distillation_loss", "on_policy_batch", "train_drafter",
]
