"""The predicted features are detached between steps: the value is right, but a step's loss
no longer trains the steps before it."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """        predicted, logits = feature_draft_step(head, predicted[:, :n], tokens[:, step + 1:], cache,
""",
    """        predicted, logits = feature_draft_step(head, predicted[:, :n].detach(), tokens[:, step + 1:], cache,
""",
)]
