"""Every draft is accepted without a test; the bonus comes from p_k."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n",
    "        rejected_idx, token = torch.tensor(k), logits_processor.sample(p[k])\n",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
