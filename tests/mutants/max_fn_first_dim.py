"""max_fn normalises over the first dim instead of the last (sum(dim=0))."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("total = positive.sum(dim=-1, keepdim=True)", "total = positive.sum(dim=0, keepdim=True)")]
NAMED = "normalised over the first dim, not the last"
