"""Correct verifiers written as plain loops: one draft at a time, fresh uniforms for every
decision, tokens by inverse CDF over unnormalised weights. Slow, but obviously right."""
import numpy as np
import torch


def speculative_sampling(target_dists, proposal_dists, candidate_tokens, generator=None):
    device = target_dists.device
    for i, token in enumerate(candidate_tokens.tolist()):
        p, q = target_dists[i, token].item(), proposal_dists[i, token].item()
        if torch.rand((), generator=generator).item() < p / q:
            continue
        residual = (target_dists[i] - proposal_dists[i]).clamp(min=0)
        token = torch.multinomial(residual, 1, generator=generator)[0]
        return torch.tensor(i, device=device), token
    k = len(candidate_tokens)
    return torch.tensor(k, device=device), torch.multinomial(target_dists[k], 1, generator=generator)[0]


def speculative_decoding_verify(draft_tokens, draft_probs, target_probs, vocab_size):
    emitted = []
    for i, token in enumerate(draft_tokens):
        accept, pick = np.random.uniform(size=2)  # both drawn before the decision
        p, q = target_probs[i][token], draft_probs[i][token]
        if accept < p / q:
            emitted.append(int(token))
            continue
        residual = [max(a - b, 0.0) for a, b in zip(target_probs[i], draft_probs[i])]
        return emitted + [_inverse_cdf(residual, pick)]
    return emitted + [_inverse_cdf(list(target_probs[len(draft_tokens)]), np.random.uniform())]


def _inverse_cdf(weights, uniform: float) -> int:
    """Token i with probability weights[i] / sum(weights) for a uniform in [0, 1), counted
    from the last token down; a zero weight is never drawn."""
    cumulative = np.cumsum(weights[::-1])
    return len(weights) - 1 - int(np.searchsorted(cumulative, uniform * cumulative[-1], side="right"))
