"""max_fn without the clamp: norm(x) keeps the negative entries of p − q."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("positive = x.clamp(min=0)", "positive = x")]
