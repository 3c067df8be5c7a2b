"""max_fn as softmax(x): an exponential where the positive part is meant."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("    return positive / torch.where(total > 0, total, torch.ones_like(total))",
            "    return x.softmax(dim=-1)")]
NAMED = "softmax(x): max_fn normalises the positive part"
