"""The drafter's tree forwards place each node at its index in the flattened tree instead of its depth's position: the output stays exact, the drafts are worse."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("depths[:drafted], cache, rows=width)", "torch.arange(1, drafted + 1), cache, rows=width)")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
