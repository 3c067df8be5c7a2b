"""Lessons 1–2 — verifying a block of drafted tokens against the target's distributions."""
import numpy as np
import torch

from solutions.residual import max_fn


def speculative_decoding_verify(draft_tokens, draft_probs, target_probs, vocab_size) -> list[int]:
    """The numpy warm-up: verify ``k`` drafts one by one, as in the paper.

    draft_tokens ``[k]`` ints; draft_probs ``[k, V]`` (q, the drafter's distributions);
    target_probs ``[k+1, V]`` (p; the last row is for the bonus token). Draft ``i`` is
    accepted with probability ``min(1, p_i(d)/q_i(d))``; at the first rejection one token is
    drawn from ``norm(max(0, p_i − q_i))`` and verification stops; when all are accepted
    the bonus token is drawn from ``p_k``. Returns the accepted drafts and that last token.
    Draws from numpy's global generator.
    """
    draft_probs = np.asarray(draft_probs, dtype=np.float64)
    target_probs = np.asarray(target_probs, dtype=np.float64)
    emitted = []
    for i, token in enumerate(draft_tokens):
        p, q = target_probs[i, token], draft_probs[i, token]
        if np.random.random() * q < p:  # u < p/q, without dividing by q
            emitted.append(int(token))
            continue
        residual = np.maximum(target_probs[i] - draft_probs[i], 0.0)
        emitted.append(int(np.random.choice(vocab_size, p=residual / residual.sum())))
        return emitted
    emitted.append(int(np.random.choice(vocab_size, p=target_probs[len(draft_tokens)])))
    return emitted


def speculative_sampling(target_dists: torch.Tensor, proposal_dists: torch.Tensor,
                         candidate_tokens: torch.Tensor, generator: torch.Generator | None = None):
    """Verify ``k`` drafts at once; returns ``(rejected_idx, resampled_token)``, 0-dim tensors.

    target_dists ``[k+1, V]`` (p), proposal_dists ``[k, V]`` (q), candidate_tokens ``[k]``.
    Draft i is accepted iff ``u_i · q_i(d_i) < p_i(d_i)`` with ``u_i ~ U[0, 1)``: probability
    ``min(1, p/q)``, no division, and a draft with ``p = 0`` is never accepted.
    ``rejected_idx`` is the first rejected position, or ``k`` if all were accepted; the
    token comes from the residual ``max_fn(p_i − q_i)`` at that position, or from ``p_k``
    (the bonus) when ``rejected_idx == k``. No Python loop over k and no host sync:
    everything stays on the tensors' device.
    """
    k = candidate_tokens.shape[0]
    drafts = candidate_tokens.unsqueeze(-1)
    p = target_dists[:k].gather(-1, drafts).squeeze(-1)
    q = proposal_dists.gather(-1, drafts).squeeze(-1)
    u = torch.rand(k, generator=generator, dtype=p.dtype, device=p.device)
    rejected = u * q >= p
    # index of the first rejection, k if none: argmax finds the first maximum
    with_sentinel = torch.cat([rejected, rejected.new_ones(1)])
    rejected_idx = with_sentinel.to(torch.uint8).argmax()
    candidates = torch.cat([max_fn(target_dists[:k] - proposal_dists), target_dists[k:]])
    # index_select, not candidates[rejected_idx]: indexing with a tensor reads it on the host
    return rejected_idx, sample(candidates.index_select(0, rejected_idx.view(1))[0], generator)


def greedy_match(target_dists: torch.Tensor, candidate_tokens: torch.Tensor):
    """Greedy verification: accept drafts while they equal the target's argmax.

    target_dists ``[k+1, V]``, candidate_tokens ``[k]`` -> ``(rejected_idx, token)``, 0-dim
    tensors: the first position where the draft differs from ``argmax p_i`` (``k`` if none)
    and the target's argmax there.
    """
    k = candidate_tokens.shape[0]
    best = target_dists.argmax(dim=-1)
    mismatch = torch.cat([best[:k] != candidate_tokens, best.new_ones(1, dtype=torch.bool)])
    rejected_idx = mismatch.to(torch.uint8).argmax()
    return rejected_idx, best.index_select(0, rejected_idx.view(1))[0]


def sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token from probs ``[V]`` (0-dim LongTensor) by the exponential race, no host sync."""
    race = torch.empty_like(probs).exponential_(1.0, generator=generator)
    return (probs / race).argmax(dim=-1)
