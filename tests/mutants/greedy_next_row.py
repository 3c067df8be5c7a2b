"""Rows misaligned in greedy_match: draft i is compared with the argmax of row i + 1."""
EXERCISE = "greedy_match"
MODULE = "verification"
PATCHES = [("mismatch = torch.cat([best[:k] != candidate_tokens", "mismatch = torch.cat([best[1:] != candidate_tokens")]
NAMED = "each draft compared with the argmax of the next row"
