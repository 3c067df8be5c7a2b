"""The bonus token sampled from the last draft's row p[k-1] instead of p[k]."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "rejected_idx, token = speculative_sampling(p, q, ids[0, end : end + k])",
    "rejected_idx, token = speculative_sampling(torch.cat([p[:k], p[max(k - 1, 0) : k]]) if k else p,\n"
    "                                                   q, ids[0, end : end + k])",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
