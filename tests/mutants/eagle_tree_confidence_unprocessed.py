"""The tree's confidence taken from the head's softmax whatever the processor: the temperature and the top-k filter of logits_processor never shape the tree."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """        probs = level_logits.softmax(-1) if processor.is_greedy else processor(level_logits)
""",
    """        probs = level_logits.softmax(-1)
""",
)]
