"""Exact, but each prompt decoded on its own by lesson 4's loop: no forward serves the batch."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [(
    "    if not prompts or not all(",
    "    from solutions.speculative import speculative_generate\n"
    "    runs = [speculative_generate(p, drafter, target, gamma=gamma, logits_processor=logits_processor,\n"
    "                                 max_gen_len=max_gen_len, eos_tokens_id=eos_tokens_id,\n"
    "                                 pad_token_id=pad_token_id, use_cache=use_cache) for p in prompts]\n"
    "    return [ids for ids, _ in runs], [rate for _, rate in runs]\n"
    "    if not prompts or not all(",
)]
