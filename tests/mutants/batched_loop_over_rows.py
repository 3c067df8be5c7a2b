"""Exact, but a Python loop over the rows calling lesson 2's verifier: B times the calls."""
EXERCISE = "batched_verify"
MODULE = "batched"
PATCHES = [
    ("from solutions.verification import sample\n",
     "from solutions.verification import sample, speculative_sampling\n"),
    ("    batch, k = candidate_tokens.shape\n    drafts = candidate_tokens.unsqueeze(-1)\n",
     "    pairs = [speculative_sampling(p_row, q_row, d_row, generator)\n"
     "             for p_row, q_row, d_row in zip(target_dists, proposal_dists, candidate_tokens)]\n"
     "    return torch.stack([j for j, _ in pairs]), torch.stack([t for _, t in pairs])\n"
     "    batch, k = candidate_tokens.shape\n    drafts = candidate_tokens.unsqueeze(-1)\n"),
]
