"""The target's logits are not detached: the token loss sends gradient into the teacher."""
EXERCISE = "eagle_loss"
MODULE = "eagle"
PATCHES = [(
    """    p = target_logits.detach().softmax(-1)
""",
    """    p = target_logits.softmax(-1)
""",
)]
