"""The losses take raw logits (divided by the temperature) where log-probabilities belong: no log_softmax."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('log_p = (target_logits.detach() / temperature).log_softmax(dim=-1)',
     'log_p = target_logits.detach() / temperature'),
    ('log_q = (draft_logits / temperature).log_softmax(dim=-1)',
     'log_q = draft_logits / temperature'),
]
NAMED = "the formula on raw logits"
