"""The gradient never clipped: a step can throw the drafter as far as one batch's gradient says."""
EXERCISE = "train_drafter"
MODULE = "distill"
PATCHES = [
    ("        torch.nn.utils.clip_grad_norm_(drafter.parameters(), 1.0)\n", ""),
]
NAMED = "a step whose gradient is not clipped to norm 1"
