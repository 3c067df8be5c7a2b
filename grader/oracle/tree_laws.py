"""Exact laws of token-tree verification: one position in closed form, a whole call by
enumeration through tiny models.

One position, ``m`` drafts ``x_0 … x_{m−1}`` i.i.d. from ``q``, target ``p``. Multi-draft
verification tries them in order against the residuals ``r_0 = p``,
``r_{i+1} = norm(max(0, r_i − q))``; draft ``i`` is reached with probability
``β_0 ⋯ β_{i−1}``, ``β_j = 1 − Σ min(q, r_j)`` (its rejection probability), and then
accepted and equal to ``t`` with probability ``q(t) · min(1, r_i(t)/q(t)) = min(q, r_i)(t)``:

    P(index = i, token = t) = β_0 ⋯ β_{i−1} · min(q, r_i)(t)      for i < m
    P(index = m, token = t) = β_0 ⋯ β_{m−1} · r_m(t)

Summed over the index this is ``p(t)``: each step is lesson 2's verifier with target
``r_i``, and a rejected step leaves exactly the residual to be matched. Medusa's typical
acceptance keeps a draft iff ``p(x) > c`` (``c`` the entropy cut): with ``Q = Σ_{p > c} q``,
``P(index = i, token = t) = (1 − Q)^i q(t) [p(t) > c]`` and, all rejected, ``(1 − Q)^m``
times ``p`` restricted to ``p ≥ c``. Laws are ``{outcome: probability}`` dicts without
the outcomes of probability 0; distributions are float64 numpy arrays.
"""
from fractions import Fraction

import numpy as np
import torch

from grader.oracle import acceptance

# Medusa's typical acceptance at its published defaults (posterior_threshold ε, posterior_alpha δ):
# the oracle's own, as the reference's typical_acceptance defaults are (tests/test_layout.py ties them)
MEDUSA_THRESHOLD = 0.09
MEDUSA_ALPHA = 0.3


def residuals(p: np.ndarray, q: np.ndarray, m: int) -> np.ndarray:
    """``[m + 1, V]``: ``r_0 = p`` and ``r_{i+1} = norm(max(0, r_i − q))`` (a zero row stays zero)."""
    rows = [p]
    for _ in range(m):
        positive = np.maximum(rows[-1] - q, 0.0)
        total = positive.sum()
        rows.append(positive / total if total > 0 else positive)
    return np.array(rows)


def multi_draft_law(p: np.ndarray, q: np.ndarray, m: int) -> dict:
    """The law of ``(index, token)`` of ``multi_draft_sampling`` with ``m`` i.i.d. drafts of q."""
    r = residuals(p, q, m)
    accepted = np.minimum(q, r[:m])  # [m, V]: reach draft i, accept it as token t
    rejected = 1.0 - accepted.sum(axis=1)  # [m]: β_i
    reached = np.concatenate([[1.0], np.cumprod(rejected)])  # [m + 1]
    return _positive(np.vstack([reached[:m, None] * accepted, reached[m] * r[m][None]]))


def deterministic_children_law(p: np.ndarray, children: tuple[int, ...]) -> dict:
    """The law of ``(index, token)`` of ``verify_deterministic_children``: the token follows p
    (each child is lesson 2's verifier with a one-hot q, then removed from the residual), and
    the index is the token's place among the children, ``m`` when it is none of them."""
    place = {token: index for index, token in enumerate(children)}
    return {(place.get(token, len(children)), token): float(p[token]) for token in range(len(p)) if p[token] > 0}


def typical_cut(p: np.ndarray, threshold: float = MEDUSA_THRESHOLD, alpha: float = MEDUSA_ALPHA) -> float:
    """Medusa's cut ``min(threshold, alpha · exp(−H(p)))``."""
    entropy = -float(np.sum(p[p > 0] * np.log(p[p > 0])))
    return min(threshold, alpha * np.exp(-entropy))


def typical_law(p: np.ndarray, q: np.ndarray, m: int) -> dict:
    """The law of ``(index, token)`` of ``typical_acceptance`` with ``m`` i.i.d. drafts of q."""
    cut = typical_cut(p)
    kept = np.where(p > cut, q, 0.0)  # a draft that is accepted as token t
    rejected = 1.0 - kept.sum()
    typical = np.where(p >= cut, p, 0.0)
    rows = [rejected ** i * kept for i in range(m)] + [rejected ** m * typical / typical.sum()]
    return _positive(np.array(rows))


def stop_and_go(law: dict, m: int, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """``(go [V], stop [V])`` from a law of ``(index, token)``: the walk descends into a
    child with token t (some index < m), or stops there emitting t (index m)."""
    go, stop = np.zeros(vocab), np.zeros(vocab)
    for (index, token), probability in law.items():
        (go if index < m else stop)[token] += probability
    return go, stop


@torch.no_grad()
def generate_law(target, drafter, prompt: list[int], branching: tuple[int, ...], length: int,
                 processor, eos_ids: list[int], rule=multi_draft_law) -> dict:
    """The law of ``(ids, mean_accepted)`` of ``tree_speculative_generate`` (sampling).

    ``{(ids tuple, Fraction(accepted, rounds)): probability}`` for ``max_gen_len=length``.
    A round's tree has depth ``k = min(len(branching), tokens left − 1)``; its walk, at
    each depth ``d < k``, descends into a child with token t or stops emitting t, with the
    probabilities ``rule(p, q, branching[d])`` gives for the current context's processed
    target and drafter distributions (the subtree of the accepted child is drawn
    afresh from its own context, whatever happened to its siblings); at depth ``k`` the
    bonus comes from p. A round emitting an end token ends the call right after it; its
    accepted count still includes the path after that token.
    """
    p = acceptance.distributions(target, prompt, length, processor)
    q = acceptance.distributions(drafter, prompt, length, processor)
    vocab = target.config.vocab_size
    law: dict = {}

    def record(ids, accepted, rounds, weight):
        key = (tuple(ids), Fraction(accepted, rounds))
        law[key] = law.get(key, 0.0) + weight

    def next_round(seq, accepted, rounds, weight):
        if len(seq) == length:
            record(seq, accepted, rounds, weight)
            return
        walk(seq, (), min(len(branching), length - len(seq) - 1), accepted, rounds + 1, weight)

    def walk(seq, path, k, accepted, rounds, weight):
        ps = np.array(p[seq + path])
        if len(path) == k:
            go, stop = np.zeros(vocab), ps  # every level accepted: the bonus
        else:
            m = branching[len(path)]
            go, stop = stop_and_go(rule(ps, np.array(q[seq + path]), m), m, vocab)
        for t in np.flatnonzero(stop):
            emit(seq, path + (int(t),), accepted + len(path), rounds, weight * stop[t])
        for t in np.flatnonzero(go):
            walk(seq, path + (int(t),), k, accepted, rounds, weight * go[t])

    def emit(seq, tokens, accepted, rounds, weight):
        ends = [i for i, t in enumerate(tokens) if t in eos_ids]
        if ends:
            record(seq + tokens[: ends[0] + 1], accepted, rounds, weight)
        else:
            next_round(seq + tokens, accepted, rounds, weight)

    next_round((), 0, 0, 1.0)
    return law


def marginal(law: dict, part) -> dict:
    """The law of ``part(outcome)``."""
    out: dict = {}
    for outcome, probability in law.items():
        key = part(outcome)
        out[key] = out.get(key, 0.0) + probability
    return out


def _positive(table: np.ndarray) -> dict:
    return {(int(i), int(t)): float(table[i, t]) for i, t in zip(*np.nonzero(table > 0))}
