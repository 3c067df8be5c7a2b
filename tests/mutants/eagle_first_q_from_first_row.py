"""eagle_generate takes the first draft's q (and the draft) from the head's first row after reading the unread pairs, not its last."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """                q_rows.append(processor(head_logits[0, -1]))""",
    """                q_rows.append(processor(head_logits[0, 0]))""",
)]
NAMED = "the first draft's q taken from the head's first row"
