"""The token loss is torch.nn.functional.cross_entropy on the [B, T, V] logits as they are: it takes dim 1,
the positions, as the classes, so the softmax and the sum run over positions instead of the vocabulary."""
EXERCISE = "eagle_loss"
MODULE = "eagle"
PATCHES = [(
    """    token_loss = -(p * head_logits.log_softmax(-1)).sum(-1).mean()
""",
    """    token_loss = nn.functional.cross_entropy(head_logits, p)
""",
)]
NAMED = "the cross-entropy over dim 1, the positions"
