"""The target's features go into step 0 without a detach: eagle_loss detaches its targets, but
the gradient reaches the teacher through the head's own inputs."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """    features, target_logits = features.detach(), target_logits.detach()
""",
    "",
)]
FIRST_HINT = "also step 0's input"
