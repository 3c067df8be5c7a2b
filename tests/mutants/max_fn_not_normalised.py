"""max_fn returns the positive part max(0, x) without normalising it."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("    return positive / torch.where(total > 0, total, torch.ones_like(total))",
            "    return positive")]
NAMED = "max(0, x) not normalised"
