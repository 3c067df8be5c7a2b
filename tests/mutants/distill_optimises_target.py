"""AdamW over the target's parameters instead of the drafter's: the drafter never moves."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ('torch.optim.AdamW(drafter.parameters(), lr=lr)',
     'torch.optim.AdamW(target.parameters(), lr=lr)'),
]
