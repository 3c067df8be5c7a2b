"""The exact law of the acceptance rate that ``speculative_generate`` returns.

A round that accepts drafts d_1..d_n and then emits c has probability
Π_j min(p_j(d_j), q_j(d_j)) · max(0, p_{n+1}(c) − q_{n+1}(c)) (a draft is proposed with
probability q and kept with min(1, p/q); a rejection followed by the correction c has
probability Σ_d q(d)(1 − min(1, p(d)/q(d))) · norm(max(0, p − q))(c) = max(0, p(c) − q(c))),
or Π_j min(p_j(d_j), q_j(d_j)) · p_{k+1}(c) when all k drafts are accepted. Walking every
such path through tiny models gives the law of (accepted, drafted) over a whole call.
"""
import itertools
from fractions import Fraction

import torch


@torch.no_grad()
def rate_law(target, drafter, prompt: list[int], gamma: int, length: int, processor,
             first_target: bool, counts_gamma: bool = False) -> dict:
    """{accepted / drafted as a Fraction: probability} for ``max_gen_len=length``, no end token.

    Each round drafts ``min(gamma, tokens left − 1)``; a call that drafted nothing has rate 0.
    p and q for every context come from one batched forward of each model. With
    ``counts_gamma``, the law of the usual bug: every round counted as ``gamma`` drafted.
    """
    p, q = distributions(target, prompt, length, processor), distributions(drafter, prompt, length, processor)
    tokens = range(target.config.vocab_size)
    law: dict = {}

    def next_round(seq, accepted, drafted, weight):
        if len(seq) == length:
            rate = Fraction(accepted, drafted) if drafted else Fraction(0)
            law[rate] = law.get(rate, 0.0) + weight
            return
        k = min(gamma, length - len(seq) - 1)
        verify(seq, k, 0, accepted, drafted + (gamma if counts_gamma else k), weight)

    def verify(seq, k, i, accepted, drafted, weight):  # drafts 1..i of this round accepted
        ps, qs = p[seq], q[seq]
        for c in tokens:
            if i == k:  # every draft accepted: the bonus comes from p
                if ps[c] > 0:
                    next_round(seq + (c,), accepted + k, drafted, weight * ps[c])
                continue
            if ps[c] > qs[c]:  # a rejection here, then the correction c
                next_round(seq + (c,), accepted + i, drafted, weight * (ps[c] - qs[c]))
            if min(ps[c], qs[c]) > 0:  # c drafted and accepted
                verify(seq + (c,), k, i + 1, accepted, drafted, weight * min(ps[c], qs[c]))

    if first_target:  # the prefill: the first token from the target, nothing drafted
        for c in tokens:
            if p[()][c] > 0:
                next_round((c,), 0, 0, p[()][c])
    else:
        next_round((), 0, 0, 1.0)
    return law


def distributions(model, prompt: list[int], length: int, processor) -> dict:
    """{generated prefix (tuple, shorter than ``length``): processed distribution (list)}."""
    vocab = model.config.vocab_size
    tails = torch.tensor(list(itertools.product(range(vocab), repeat=length - 1)), dtype=torch.long)
    context = torch.cat([torch.tensor(prompt).expand(len(tails), -1), tails], dim=1)
    rows = processor(model(context).logits[:, len(prompt) - 1 :].double()).tolist()
    found = {}
    for tail, dists in zip(tails.tolist(), rows):
        for j, dist in enumerate(dists):
            found[tuple(tail[:j])] = dist
    return found


def as_fraction(rate: float) -> Fraction:
    """The fraction with a small denominator that a float rate stands for."""
    return Fraction(rate).limit_denominator(1000)
