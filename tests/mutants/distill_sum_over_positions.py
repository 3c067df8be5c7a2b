"""The divergence summed over positions instead of averaged: N times the loss (AdamW hides the
scale in training; the value and the gradient show it)."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('return divergence(log_p, log_q, kind).mean()',
     'return divergence(log_p, log_q, kind).sum()'),
]
NAMED = "the sum over the 4 positions where their mean is meant"
