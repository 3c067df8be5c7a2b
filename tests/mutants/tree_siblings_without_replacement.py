"""Siblings drafted without replacement (all different) but verified as if they were i.i.d. draws of q."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("torch.multinomial(q, children, replacement=True)", "torch.multinomial(q, children, replacement=False)")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
