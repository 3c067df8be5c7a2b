"""α measured one position late: q from logits[:, start + 1:], each drafter distribution
compared with the target's for the position before it."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ('q = drafter(texts).logits[:, start:-1].softmax(dim=-1)',
     'q = drafter(texts).logits[:, start + 1:].softmax(dim=-1)'),
]
NAMED = "α measured one position late"
