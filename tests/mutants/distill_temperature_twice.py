"""The loss divides both logits by the temperature twice: p and q at T², not at T."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('log_p = (target_logits.detach() / temperature).log_softmax(dim=-1)',
     'log_p = (target_logits.detach() / temperature / temperature).log_softmax(dim=-1)'),
    ('log_q = (draft_logits / temperature).log_softmax(dim=-1)',
     'log_q = (draft_logits / temperature / temperature).log_softmax(dim=-1)'),
]
NAMED = "divided by the temperature twice"
