"""The expanded nodes are read with a causal mask among them: each sees every node expanded before it, cousins included, not only its ancestors."""
EXERCISE = "dynamic_tree"
MODULE = "eagle"
PATCHES = [(
    """        mask, depths = tree_layout([place.get(parents[node], -1) for node in expanded])
""",
    """        mask, depths = tree_layout([place.get(parents[node], -1) for node in expanded])
        mask = torch.ones_like(mask).tril()
""",
)]
