"""The drafter's logits taken one position late ([:, P:] instead of [:, P − 1 : −1]): each
prediction is trained toward the target's distribution for the position before it."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ('draft_logits = drafter(ids).logits[:, prompts.shape[1] - 1 : -1]',
     'draft_logits = drafter(ids).logits[:, prompts.shape[1] :]'),
]
NAMED = "a step whose drafter logits are one position late"
