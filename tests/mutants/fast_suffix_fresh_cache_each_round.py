"""fast_suffix_speculative_generate allocates a new StaticModel (a fresh StaticCache) every round
and prefills it again with the whole text so far: the output is right, but each round pays a
prefill and a compiled step would meet new cache tensors every round."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [
    ("from solutions.fast import sequence_buffer, static_model  # noqa: E402\n",
     "from solutions.fast import StaticModel, cache_length, sequence_buffer, static_model  # noqa: E402\n"),
    ("        attention_mask, positions = static_tree_attention(",
     "        target_model = StaticModel(target, cache_length(total_len + width), compile)\n"
     "        target_model.prefill(ids, end - 1, processor, stop_ids)\n"
     "        attention_mask, positions = static_tree_attention("),
]
NAMED = "expected one StaticCache for the whole call"
