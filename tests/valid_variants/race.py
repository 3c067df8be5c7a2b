"""Correct verifiers that draw their random numbers unlike the reference: exponential races.

Draft ``i`` is accepted iff ``E_a / m < E_r / (q − m)`` with ``m = min(p, q)`` at the draft
and two independent ``Exp(1)`` draws: of two exponential clocks with rates ``m`` and
``q − m``, the first rings first with probability ``m / q = min(1, p/q)``. Tokens come
from the Gumbel-max trick on unnormalised weights. Every random number is drawn up front.
"""
import numpy as np
import torch


def speculative_sampling(target_dists, proposal_dists, candidate_tokens, generator=None):
    k = candidate_tokens.shape[0]
    drafts = candidate_tokens.unsqueeze(-1)
    p = target_dists[:k].gather(-1, drafts).squeeze(-1)
    q = proposal_dists.gather(-1, drafts).squeeze(-1)
    kept = torch.minimum(p, q)
    clocks = torch.empty(2, k, dtype=p.dtype, device=p.device).exponential_(generator=generator)
    accepted = clocks[0] * (q - kept) < clocks[1] * kept  # E_a / m < E_r / (q − m), no division
    rejected_idx = accepted.long().cumprod(0).sum()  # the number of leading acceptances
    weights = torch.cat([(target_dists[:k] - proposal_dists).clamp(min=0), target_dists[k:]])
    uniform = torch.rand(weights.shape[-1], generator=generator, dtype=p.dtype, device=p.device)
    gumbel = -torch.log(-torch.log(uniform))
    return rejected_idx, (weights[rejected_idx].log() + gumbel).argmax()


def speculative_decoding_verify(draft_tokens, draft_probs, target_probs, vocab_size):
    q = np.asarray(draft_probs, dtype=np.float64)
    p = np.asarray(target_probs, dtype=np.float64)
    k = len(draft_tokens)
    clocks = np.random.exponential(size=(2, k))
    gumbel = np.random.gumbel(size=(k + 1, vocab_size))
    weights = np.vstack([np.maximum(p[:k] - q, 0.0), p[k:]])
    for i, token in enumerate(draft_tokens):
        kept = min(p[i, token], q[i, token])
        if not clocks[0, i] * (q[i, token] - kept) < clocks[1, i] * kept:
            return [int(t) for t in draft_tokens[:i]] + [_gumbel_max(weights[i], gumbel[i])]
    return [int(t) for t in draft_tokens] + [_gumbel_max(weights[k], gumbel[k])]


def _gumbel_max(weights, gumbel) -> int:
    with np.errstate(divide="ignore"):
        return int(np.argmax(np.log(weights) + gumbel))
