"""The token loss is the cross-entropy against the target's argmax token, not its whole distribution."""
EXERCISE = "eagle_loss"
MODULE = "eagle"
PATCHES = [(
    """    p = target_logits.detach().softmax(-1)
""",
    """    p = nn.functional.one_hot(target_logits.detach().argmax(-1), target_logits.shape[-1]).to(head_logits.dtype)
""",
)]
NAMED = "the cross-entropy against the target's argmax token"
