"""Step j attends to every earlier step's predictions causally (a plain causal mask over the
predicted keys), not only to its own root's chain: a root reads the other roots' guesses."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """                            + [root == torch.arange(roots - i, device=features.device)  # its own chain
""",
    """                            + [root >= torch.arange(roots - i, device=features.device)  # its own chain
""",
)]
