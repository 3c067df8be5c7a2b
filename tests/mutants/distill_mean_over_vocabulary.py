"""KL as a mean over the vocabulary, where the sum over it is meant: the loss divided by V."""
EXERCISE = "distillation_loss"
MODULE = "distill"
PATCHES = [('return (log_a.exp() * (log_a - log_b)).sum(dim=-1)',
            'return (log_a.exp() * (log_a - log_b)).mean(dim=-1)')]
NAMED = "the mean over the vocabulary where their sum is meant"
