"""AdamW over the target's parameters instead of the drafter's: the drafter never moves."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ('optimizer = torch.optim.AdamW(drafter.parameters(), lr=lr)',
     'optimizer = torch.optim.AdamW(target.parameters(), lr=lr)'),
]
