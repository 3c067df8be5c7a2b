"""The cross-entropy is averaged over the vocabulary instead of summed: the token loss is V times too small."""
EXERCISE = "eagle_loss"
MODULE = "eagle"
PATCHES = [(
    """    token_loss = -(p * head_logits.log_softmax(-1)).sum(-1).mean()
""",
    """    token_loss = -(p * head_logits.log_softmax(-1)).mean()
""",
)]
NAMED = "the cross-entropy averaged over the vocabulary where its sum is meant"
