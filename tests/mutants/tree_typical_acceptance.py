"""Medusa's typical acceptance instead of multi-draft verification: a child is kept iff its target probability clears an entropy-dependent cut."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("index, token = multi_draft_sampling(p.index_select(", "index, token = typical_acceptance(p.index_select(")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
