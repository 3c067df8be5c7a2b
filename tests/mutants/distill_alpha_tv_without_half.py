"""α as 1 − Σ |p − q|: total variation without its ½."""
EXERCISE = "expected_acceptance"
MODULE = "distill"
PATCHES = [('return torch.minimum(p, q).sum(dim=-1)', 'return 1 - (p - q).abs().sum(dim=-1)')]
NAMED = "1 − Σ |p − q|: total variation has a ½ in front"
