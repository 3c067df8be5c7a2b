"""Top-p that drops the token crossing the threshold (keeps only the mass strictly below top_p)."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [(
    "    mass_above = torch.empty_like(probs).scatter_(-1, order, mass_above_sorted)",
    "    mass_above = torch.empty_like(probs).scatter_(-1, order, mass_above_sorted + sorted_probs)",
)]
