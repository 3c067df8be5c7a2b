"""Total variation without the ½: Σ |p − q|, twice 1 − α."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('return 0.5 * (log_p.exp() - log_q.exp()).abs().sum(dim=-1)',
     'return (log_p.exp() - log_q.exp()).abs().sum(dim=-1)'),
]
NAMED = "twice the formula: total variation has a ½"
