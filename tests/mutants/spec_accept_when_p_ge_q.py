"""Deterministic acceptance: a draft is accepted iff p(d) >= q(d), never with probability p/q."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "\nfrom solutions.verification import speculative_sampling\n",
    '''
from solutions.residual import max_fn
from solutions.verification import sample


def speculative_sampling(target_dists, proposal_dists, candidate_tokens):
    k = candidate_tokens.shape[0]
    p = target_dists[:k].gather(-1, candidate_tokens.unsqueeze(-1)).squeeze(-1)
    q = proposal_dists.gather(-1, candidate_tokens.unsqueeze(-1)).squeeze(-1)
    rejected = torch.cat([p < q, torch.ones(1, dtype=torch.bool)])
    rejected_idx = rejected.to(torch.uint8).argmax()
    residuals = torch.cat([max_fn(target_dists[:k] - proposal_dists), target_dists[k:]])
    return rejected_idx, sample(residuals[rejected_idx])
''',
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
