"""optimizer.zero_grad() left out: each step's gradient is the sum of every step's so far."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ('        optimizer.zero_grad(set_to_none=True)\n', ''),
]
NAMED = "steps whose gradients accumulate"
