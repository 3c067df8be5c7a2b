"""Greedy as a softmax: GreedyProcessor returns softmax(logits) instead of a one-hot."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [(
    """        best = logits.argmax(dim=-1, keepdim=True)
        probs = torch.zeros(logits.shape, dtype=probability_dtype(logits.dtype), device=logits.device)
        return probs.scatter_(-1, best, 1.0)""",
    """        return torch.softmax(logits.to(probability_dtype(logits.dtype)), dim=-1)""",
)]
NAMED = "the softmax of the logits: greedy is a one-hot distribution"
