"""The logits are the LM head on the input features, not on the predicted ones: q is the target's own p of the previous position."""
EXERCISE = "feature_draft"
MODULE = "eagle"
PATCHES = [(
    """    return predicted, head.lm_head(predicted)
""",
    """    return predicted, head.lm_head(features)
""",
)]
