"""suffix_speculative_generate's walk reads node i's p from row i (its parent's or a sibling's) instead of row 1 + i."""
EXERCISE = "suffix_generate"
MODULE = "suffix"
PATCHES = [("        path, token = walk_deterministic_tree(processor(logits[0]), parents, nodes)",
            "        path, token = walk_deterministic_tree(processor(torch.cat([logits[0, :1], logits[0, :-1]])), "
            "parents, nodes)")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
