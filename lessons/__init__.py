"""Your implementation of the course's exercises (same names as ``solutions``).

Each name is imported from its lesson's module on first use (``from lessons import
max_fn``), so a lesson you are still writing never stops the others from importing.
"""
import importlib

_MODULES = {  # name -> its module, written from the reference's modules' __all__
    "LogitsProcessor": "sampling",
    "GreedyProcessor": "sampling",
    "MultinomialProcessor": "sampling",
    "TopKProcessor": "sampling",
    "NucleusProcessor": "sampling",
    "TopKNucleusProcessor": "sampling",
    "autoregressive_generate": "autoregressive",
    "max_fn": "residual",
    "speculative_decoding_verify": "verification",
    "speculative_sampling": "verification",
    "greedy_match": "verification",
    "speculative_generate": "speculative",
    "NGramStorage": "ngram",
    "PromptLookup": "ngram",
    "ngram_assisted_speculative_generate": "ngram",
    "multi_draft_sampling": "trees",
    "typical_acceptance": "trees",
    "tree_layout": "trees",
    "tree_speculative_generate": "trees",
    "fast_speculative_generate": "fast",
    "fast_autoregressive_generate": "fast",
    "batched_speculative_sampling": "batched",
    "batched_speculative_generate": "batched",
    "expected_acceptance": "distill",
    "distillation_loss": "distill",
    "on_policy_batch": "distill",
    "train_drafter": "distill",
    "verify_deterministic_children": "eagle",
    "feature_draft_step": "eagle",
    "eagle_loss": "eagle",
    "unrolled_eagle_loss": "eagle",
    "eagle_generate": "eagle",
    "grow_tree": "eagle",
    "eagle_tree_generate": "eagle",
    "FeatureHead": "eagle",
    "load_feature_head": "eagle",
    "SuffixIndex": "suffix",
    "speculation_tree": "suffix",
    "suffix_speculative_generate": "suffix",
    "adaptive_speculative_generate": "suffix",
    "CorpusIndex": "suffix",
    "corpus_index": "suffix",
    "fast_suffix_speculative_generate": "suffix",
}
__all__ = list(_MODULES)


def __getattr__(name):
    if name not in _MODULES:
        raise AttributeError(f"module 'lessons' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lessons.{_MODULES[name]}"), name)
