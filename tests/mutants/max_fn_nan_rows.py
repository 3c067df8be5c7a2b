"""max_fn divides by the raw row sum: a row with no positive entry (p == q) becomes NaN."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("return positive / torch.where(total > 0, total, torch.ones_like(total))",
            "return positive / total")]
