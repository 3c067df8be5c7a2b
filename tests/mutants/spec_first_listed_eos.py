"""Only the first-listed end token stops generation, not whichever comes first."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "torch.tensor(as_list(eos_tokens_id), dtype=torch.long, device=device)",
    "torch.tensor(as_list(eos_tokens_id)[:1], dtype=torch.long, device=device)",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
