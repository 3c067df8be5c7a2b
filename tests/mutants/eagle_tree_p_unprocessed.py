"""eagle_tree_generate walks the tree with the softmax of the target's logits, not logits_processor's p."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        path, token = walk_deterministic_tree(processor(logits[0]), parents, nodes)""",
    """        path, token = walk_deterministic_tree(logits[0].softmax(-1), parents, nodes)""",
)]
NAMED = "the target's p taken without logits_processor"
