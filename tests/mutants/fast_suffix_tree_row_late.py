"""fast_suffix_speculative_generate's walk reads node i's p from row i (its parent's or a sibling's)
instead of row 1 + i."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [("        path, token = walk_deterministic_tree(p[:count + 1], parents, nodes)",
            "        path, token = walk_deterministic_tree(torch.cat([p[:1], p[:count]]), parents, nodes)")]
SLOW = "one of the longest loop mutants, 8 s in CI: its exercise keeps others by default"
