"""fast_suffix_speculative_generate writes the tree's nodes into ids one at a time, reading each
node's token on the host (``int(node)``): one host sync per tree node, where a round may read
only per level of its walk, its result and its emitted tokens."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [
    ("        ids[0, end:end + count] = nodes\n"
     "        mask, depths = (t.to(device) for t in tree_layout(parents))\n"
     "        attention_mask, positions = static_tree_attention(",
     "        for i, node in enumerate(nodes):\n"
     "            ids[0, end + i] = int(node)\n"
     "        mask, depths = (t.to(device) for t in tree_layout(parents))\n"
     "        attention_mask, positions = static_tree_attention("),
]
NAMED = "accepted nodes; expected at most"
