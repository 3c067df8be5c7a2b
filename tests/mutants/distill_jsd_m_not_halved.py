"""The JSD's mixture taken as p + q, not (p + q) / 2: every JSD comes out log 2 too small."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ("log_m = torch.logaddexp(log_p, log_q) - math.log(2.0)", "log_m = torch.logaddexp(log_p, log_q)"),
]
NAMED = "the JSD with m = p + q"
