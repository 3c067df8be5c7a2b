"""The exact laws of what ``speculative_generate`` returns: its output and its rate.

A round that accepts drafts d_1..d_n and then emits c has probability
Π_j min(p_j(d_j), q_j(d_j)) · max(0, p_{n+1}(c) − q_{n+1}(c)) (a draft is proposed with
probability q and kept with min(1, p/q); a rejection followed by the correction c has
probability Σ_d q(d)(1 − min(1, p(d)/q(d))) · norm(max(0, p − q))(c) = max(0, p(c) − q(c))),
or Π_j min(p_j(d_j), q_j(d_j)) · p_{k+1}(c) when all k drafts are accepted. Walking every
such path through tiny models gives the law of (output, accepted, drafted) over a whole
call. A ``Rule`` other than ``EXACT`` walks a known bug instead, for the power statements
(grader/studies/error_rates/statement.py): its law is exact too.
"""
import itertools
from dataclasses import dataclass
from fractions import Fraction

import torch


@dataclass(frozen=True)
class Rule:
    """How a loop verifies its drafts: the exact rule, or one known bug."""

    correction_from_p: bool = False  # the token after a rejection drawn from p, not the residual
    accept_if_p_ge_q: bool = False  # a draft kept iff p(d) ≥ q(d), never with probability p/q
    q_unprocessed: bool = False  # drafts drawn from the processed q, verified against softmax(logits)
    first_from_drafter: bool = False  # with first_target, the first token drawn from q
    counts_gamma: bool = False  # the rate divides by gamma drafts in every round


EXACT = Rule()


def rate_law(target, drafter, prompt: list[int], gamma: int, length: int, processor,
             first_target: bool, rule: Rule = EXACT) -> dict:
    """{accepted / drafted as a Fraction: probability} for ``max_gen_len=length``, no end token.

    Each round drafts ``min(gamma, tokens left − 1)``; a call that drafted nothing has rate 0.
    """
    law: dict = {}
    for _, accepted, drafted, weight in endings(target, drafter, prompt, gamma, length, processor,
                                                first_target, (), rule):
        rate = Fraction(accepted, drafted) if drafted else Fraction(0)
        law[rate] = law.get(rate, 0.0) + weight
    return law


def output_law(target, drafter, prompt: list[int], gamma: int, length: int, processor,
               first_target: bool, eos: list[int], rule: Rule = EXACT) -> dict:
    """{output (the generated ids, up to and with the first end token): probability}."""
    law: dict = {}
    for output, _, _, weight in endings(target, drafter, prompt, gamma, length, processor, first_target,
                                        tuple(eos), rule):
        law[output] = law.get(output, 0.0) + weight
    return {o: w for o, w in law.items() if w > 0}


def endings(target, drafter, prompt, gamma, length, processor, first_target, eos: tuple, rule: Rule):
    """Every way a call can end: ``[(output, accepted, drafted, probability)]``. p and q for
    every context come from one batched forward of each model."""
    p, q = distributions(target, prompt, length, processor), distributions(drafter, prompt, length, processor)
    checked = distributions(drafter, prompt, length, lambda x: x.softmax(-1)) if rule.q_unprocessed else q
    tokens = range(target.config.vocab_size)
    found = []

    def next_round(seq, accepted, drafted, weight):
        if len(seq) == length or (seq and seq[-1] in eos):
            found.append((seq, accepted, drafted, weight))
            return
        k = min(gamma, length - len(seq) - 1)
        verify(seq, k, 0, accepted, drafted + (gamma if rule.counts_gamma else k), weight)

    def verify(seq, k, i, accepted, drafted, weight):  # drafts 1..i of this round accepted
        ps, qs, against = p[seq], q[seq], checked[seq]
        if i == k:  # every draft accepted: the bonus comes from p
            for c in tokens:
                if ps[c] > 0:
                    next_round(seq + (c,), accepted + k, drafted, weight * ps[c])
            return
        kept = [keep_chance(ps[c], against[c], rule) for c in tokens]
        rejected = sum(qs[c] * (1 - kept[c]) for c in tokens)
        after = ps if rule.correction_from_p else residual(ps, against)
        for c in tokens:
            if rejected * after[c] > 0:  # a rejection here, then the correction c
                next_round(seq + (c,), accepted + i, drafted, weight * rejected * after[c])
            if qs[c] * kept[c] > 0:  # c drafted and accepted (an end token ends the call)
                if c in eos:
                    found.append((seq + (c,), accepted + i + 1, drafted, weight * qs[c] * kept[c]))
                else:
                    verify(seq + (c,), k, i + 1, accepted, drafted, weight * qs[c] * kept[c])

    if first_target:  # the prefill: the first token from the target, nothing drafted
        first = q[()] if rule.first_from_drafter else p[()]
        for c in tokens:
            if first[c] > 0:
                next_round((c,), 0, 0, first[c])
    else:
        next_round((), 0, 0, 1.0)
    return found


def keep_chance(p: float, q: float, rule: Rule) -> float:
    """The probability that a drafted token with target probability p (q under the drafter,
    as verified) is accepted."""
    if rule.accept_if_p_ge_q:
        return 1.0 if p >= q else 0.0
    return min(1.0, p / q) if q > 0 else 1.0


def residual(p: list[float], q: list[float]) -> list[float]:
    """norm(max(0, p − q)); zeros where p ≤ q everywhere (nothing is ever rejected then)."""
    positive = [max(0.0, a - b) for a, b in zip(p, q)]
    total = sum(positive)
    return [x / total for x in positive] if total > 0 else positive


@torch.no_grad()
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
