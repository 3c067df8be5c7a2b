"""The head's chosen children verified as if they were i.i.d. samples of its q (lesson 9's multi_draft_sampling, min(1, r/q)): the output leaves the target's law."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """from solutions.trees import attention_bias, keep_positions, tree_attention, tree_layout
""",
    """from solutions.trees import attention_bias, keep_positions, multi_draft_sampling, tree_attention, tree_layout
""",
), (
    """    expanded = []  # the nodes whose pairs the head's cache holds after the text's, in that order
""",
    """    expanded = []  # the nodes whose pairs the head's cache holds after the text's, in that order
    q_of = {}  # each expanded node's q, the root's at -1
""",
), (
    """        probs = level_logits.softmax(-1) if processor.is_greedy else processor(level_logits)
""",
    """        probs = level_logits.softmax(-1) if processor.is_greedy else processor(level_logits)
        q_of.update(zip(level_nodes, probs))
""",
), (
    """    renumber = {node: i for i, node in enumerate(kept)}
""",
    """    renumber = {node: i for i, node in enumerate(kept)}
    grow_tree.q_of_row = {renumber[node] + 1 if node >= 0 else 0: q for node, q in q_of.items() if node in renumber or node < 0}
""",
), (
    """        index, token = verify_deterministic_children(p[row], tokens[rows - 1])
""",
    """        index, token = multi_draft_sampling(p[row], grow_tree.q_of_row[row].to(p.dtype), tokens[rows - 1])
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
