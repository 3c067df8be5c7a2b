"""Step j's input feature is one position late: root t reads the previous step's prediction
of root t + 1 (the feature of position t + j + 1) where its own (of position t + j) is meant."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """        predicted, logits = feature_draft_step(head, predicted[:, :n], tokens[:, step + 1:], cache,
""",
    """        predicted, logits = feature_draft_step(head, predicted[:, -n:], tokens[:, step + 1:], cache,
""",
)]
