"""α as the mean of min(p, q) over the vocabulary, where the sum is meant."""
EXERCISE = "expected_acceptance"
MODULE = "distill"
PATCHES = [('return torch.minimum(p, q).sum(dim=-1)', 'return torch.minimum(p, q).mean(dim=-1)')]
NAMED = "the mean over the vocabulary where their sum is meant"
