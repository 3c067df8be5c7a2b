"""`grader audit`: the course's exactness tests pointed at any speculative sampler.

- ``adapters``: the contract a sampler is audited through, and the built-in adapters;
- ``draws``: texts drawn from a sampler, with the target's law at every token;
- ``pit``: the randomized PIT, support and drafter-region tests, per position and pooled, and
  their family (weighted Holm: half of the error rate on the pooled tests);
- ``diagnosis``: what a failure means, in plain words, from which tests failed and how (and,
  for tokens outside the support, from which law they came);
- ``power``: the smallest temperature error and drafter-leaning mixture the draws catch;
- ``exact``: the exact-law audit on the tiny enumerable pairs;
- ``replay``: a plain exact loop whose steps the replayed engine bugs (tests/audit_samplers/) swap;
- ``null_study`` and ``text_study``: the family's false-alarm rate on simulated exact audits (fixed
  contexts of the shipped pair; whole texts drawn token by token on the tiny pair);
- ``report``: text, JSON and figure; ``command``: the CLI.
"""

# What the command line offers, here so that parsing it loads neither torch nor transformers.
LOOPS = {  # --loop -> (lesson module, function): the course's speculative loops
    "speculative_generate": ("speculative", "speculative_generate"),
    "fast_speculative_generate": ("fast", "fast_speculative_generate"),
    "batched_speculative_generate": ("batched", "batched_speculative_generate"),
    "tree_speculative_generate": ("trees", "tree_speculative_generate"),
    "eagle_generate": ("eagle", "eagle_generate"),
    "eagle_tree_generate": ("eagle", "eagle_tree_generate"),
    "suffix_speculative_generate": ("suffix", "suffix_speculative_generate"),
    "fast_suffix_speculative_generate": ("suffix", "fast_suffix_speculative_generate"),
}
EAGLE_LOOPS = ("eagle_generate", "eagle_tree_generate")  # drafted by a feature head, not by the drafter
SUFFIX_LOOPS = ("suffix_speculative_generate", "fast_suffix_speculative_generate")  # by a suffix index
BUILT_IN = ("hf-assisted", "prompt-lookup", "lessons")
