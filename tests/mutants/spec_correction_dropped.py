"""The correction token is dropped: after a rejection the rejected draft stays in its place."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "        ids.index_copy_(1, (end + rejected_idx).view(1), token.view(1, 1))",
    "        if rejected_idx == k:\n"
    "            ids.index_copy_(1, (end + rejected_idx).view(1), token.view(1, 1))",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
