"""fast_suffix_speculative_generate allocates its own StaticModel, sized exactly for this call's
prompt, max_gen_len and tree (not lesson 7's static_model, which rounds the length up to a block
and keeps the model across calls): a call with another length builds a cache of another size,
and the compiled verification, specialised to its mask's [1, 1, W, S] shape, compiles again."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [
    ("from solutions.fast import sequence_buffer, static_model  # noqa: E402\n",
     "from solutions.fast import StaticModel, sequence_buffer, static_model  # noqa: E402\n"),
    ('    target_model = static_model(target, "target", total_len + width, compile)\n',
     "    target_model = StaticModel(target, total_len + width, compile)\n"),
]
