"""α as the mean of q at the drafted token: E_{x~q}[q(x)] = Σ q², the drafter's confidence, instead of Σ min(p, q)."""
EXERCISE = "expected_acceptance"
MODULE = "distill"
PATCHES = [
    ('return torch.minimum(p, q).sum(dim=-1)',
     'return (q * q).sum(dim=-1)'),
]
