"""The temperature ignored: p and q are the softmaxes of the raw logits at every temperature."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [
    ('log_p = (target_logits.detach() / temperature).log_softmax(dim=-1)',
     'log_p = target_logits.detach().log_softmax(dim=-1)'),
    ('log_q = (draft_logits / temperature).log_softmax(dim=-1)',
     'log_q = draft_logits.log_softmax(dim=-1)'),
]
NAMED = "the temperature is left out"
