"""unrolled_eagle_loss feeds steps j ≥ 1 the token x_(t+j), one early, where root t's step j reads x_(t+j+1)."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [(
    """        predicted, logits = feature_draft_step(head, predicted[:, :n], tokens[:, step + 1:], cache,""",
    """        predicted, logits = feature_draft_step(head, predicted[:, :n], tokens[:, max(step, 1):][:, :n], cache,""",
)]
NAMED = "the loss of steps j ≥ 1 fed x_(t+j), one token early"
