"""α as the total variation ½ Σ |p − q|, which is 1 − α."""
EXERCISE = "expected_acceptance"
MODULE = "distill"
PATCHES = [('return torch.minimum(p, q).sum(dim=-1)', 'return 0.5 * (p - q).abs().sum(dim=-1)')]
NAMED = "the total variation ½ Σ |p − q|, which is 1 − α"
