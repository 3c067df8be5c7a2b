"""A rejected draft is replaced by a draw from p itself, not from max_fn(p − one_hot(d)): d keeps its mass."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n",
    "        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n"
    "        token = logits_processor.sample(p[rejected_idx])\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
