"""Under greedy decoding a node's children drawn from its one-hot q (every sibling the same token) instead of its top distinct tokens."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("if processor.is_greedy:\n            chosen = logits.topk",
            "if False:  # greedy children sampled like any others\n            chosen = logits.topk")]
NAMED = "children drawn from the one-hot q of greedy decoding"
