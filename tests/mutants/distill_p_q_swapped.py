"""Forward KL with p and q swapped: KL(q‖p), the reverse KL, under the name forward_kl."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('return kl(log_p, log_q)',
     'return kl(log_q, log_p)'),
]
NAMED = "the value of reverse_kl (p and q swapped"
