"""The reference implementation of every exercise (same names as ``lessons``).

``EXPORTS`` is the one list of the names ``solutions`` and ``lessons`` export, by module: each
is imported here from its module, the grader reads the list as text (``grader.exercises``) and
lessons/__init__.py is written from it. Every other module of ``solutions`` is also the source
of its lesson: ``python -m grader.release.lessons`` writes ``lessons/``.
"""
import importlib

EXPORTS = {  # module of solutions/ and lessons/ -> the names both packages export from it (a literal)
    "sampling": ("LogitsProcessor", "GreedyProcessor", "MultinomialProcessor", "TopKProcessor",
                 "NucleusProcessor", "TopKNucleusProcessor"),
    "autoregressive": ("autoregressive_generate",),
    "residual": ("max_fn",),
    "verification": ("speculative_decoding_verify", "speculative_sampling", "greedy_match"),
    "speculative": ("speculative_generate",),
    "ngram": ("NGramStorage", "PromptLookup", "ngram_assisted_speculative_generate"),
    "trees": ("multi_draft_sampling", "typical_acceptance", "tree_layout", "tree_speculative_generate"),
    "fast": ("fast_speculative_generate", "fast_autoregressive_generate"),
    "batched": ("batched_speculative_sampling", "batched_speculative_generate"),
    "distill": ("expected_acceptance", "distillation_loss", "on_policy_batch", "train_drafter"),
    "eagle": ("verify_deterministic_children", "feature_draft_step", "eagle_loss", "unrolled_eagle_loss",
              "eagle_generate", "grow_tree", "eagle_tree_generate", "FeatureHead", "load_feature_head"),
    "suffix": ("SuffixIndex", "speculation_tree", "suffix_speculative_generate", "adaptive_speculative_generate",
               "CorpusIndex", "corpus_index", "fast_suffix_speculative_generate"),
}

__all__ = [name for names in EXPORTS.values() for name in names]
for _module, _names in EXPORTS.items():
    globals().update({name: getattr(importlib.import_module(f"solutions.{_module}"), name) for name in _names})
