"""gamma never shortened near the end: the last round overshoots max_gen_len."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [
    ("torch.full((1, total_len), pad_token_id", "torch.full((1, total_len + gamma + 1), pad_token_id"),
    ("k = min(gamma, total_len - end - 1)", "k = gamma"),
]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
