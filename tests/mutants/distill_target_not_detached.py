"""The target's logits are not detached: the loss sends gradient into the teacher."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('log_p = (target_logits.detach() / temperature)',
     'log_p = (target_logits / temperature)'),
]
