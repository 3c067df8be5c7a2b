"""Only the first-listed end token stops generation, not whichever comes first."""
EXERCISE = "autoregressive_generate"
MODULE = "autoregressive"
PATCHES = [(
    "    stop_ids = torch.tensor(as_list(eos_tokens_id), device=device)",
    "    stop_ids = torch.tensor(as_list(eos_tokens_id)[:1], device=device)",
)]
