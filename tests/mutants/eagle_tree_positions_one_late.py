"""The expanded nodes are read one position late: depth counted from the text's end, not from its last pair."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """        attention_mask, position_ids = tree_attention(text_len, mask.to(logits.device), depths.to(logits.device),
""",
    """        attention_mask, position_ids = tree_attention(text_len, mask.to(logits.device), (depths + 1).to(logits.device),
""",
)]
