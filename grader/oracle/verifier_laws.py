"""Exact laws of one verification round, in closed form.

A round verifies ``k`` drafts: target rows ``p`` ``[k+1, V]``, draft rows ``q`` ``[k, V]``,
draft ``i`` drawn from ``q_i`` and accepted with probability ``min(1, p_i(d) / q_i(d))``.
Given that the round reached position ``i``:

- draft ``i`` is accepted and equals ``d`` with probability ``q_i(d) · min(1, p_i(d)/q_i(d))
  = min(p_i(d), q_i(d))``; summed over ``d`` this is the acceptance rate
  ``α_i = Σ min(p_i, q_i) = 1 − TV(p_i, q_i)``;
- the round stops there and emits ``t`` with probability ``max(0, p_i(t) − q_i(t))``: the
  rejected mass ``1 − α_i`` times the residual ``norm(max(0, p_i − q_i))``;
- so the token emitted at ``i`` has law ``min(p_i, q_i) + max(0, p_i − q_i) = p_i``.

When all ``k`` drafts are accepted the bonus token comes from ``p_k``. Every function
takes numpy arrays (float64) and returns laws as ``{outcome: probability}`` dicts
without the outcomes of probability 0.
"""
import numpy as np


def overlap(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``min(p_i, q_i)`` ``[k, V]``: the law of the accepted draft at each position (unnormalised)."""
    return np.minimum(p[: len(q)], q)


def rejected_mass(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``max(0, p_i − q_i)`` ``[k, V]``: the law of a stop at ``i`` with each correction token."""
    return np.maximum(p[: len(q)] - q, 0.0)


def acceptance_rates(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``α_i = Σ_v min(p_i(v), q_i(v))`` ``[k]``: the probability that draft ``i`` is accepted."""
    return overlap(p, q).sum(axis=-1)


def total_variation(p_row: np.ndarray, q_row: np.ndarray) -> float:
    """``TV(p, q) = ½ Σ |p − q|``, which equals ``1 − Σ min(p, q)``."""
    return 0.5 * float(np.abs(p_row - q_row).sum())


def expected_tokens_per_round(alpha: float, gamma: int) -> float:
    """``1 + α + … + α^γ = (1 − α^{γ+1}) / (1 − α)``: tokens emitted by one round of ``gamma``
    drafts when each is accepted with probability ``alpha`` (the paper's i.i.d. model)."""
    return float(gamma + 1) if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)


def accepted_count_law(p: np.ndarray, q: np.ndarray) -> dict:
    """The law of the number of accepted drafts ``j`` (= ``rejected_idx``), ``0 ≤ j ≤ k``:
    ``P(j) = α_0 ⋯ α_{j−1} · (1 − α_j)``, and ``α_0 ⋯ α_{k−1}`` for ``j = k``."""
    alpha = acceptance_rates(p, q)
    reached = np.concatenate([[1.0], np.cumprod(alpha)])  # P(round reaches position j)
    stop = np.append(1.0 - alpha, 1.0)
    return _positive(enumerate(reached * stop))


def correction_laws(p: np.ndarray, q: np.ndarray) -> dict:
    """``{i: law of the correction token given a stop at i}`` for every position where a
    rejection is possible: the residual ``norm(max(0, p_i − q_i))``."""
    laws = {}
    for i, mass in enumerate(rejected_mass(p, q)):
        total = mass.sum()
        if total > 0:
            laws[i] = _positive(enumerate(mass / total))
    return laws


def bonus_law(p: np.ndarray) -> dict:
    """The law of the bonus token (all drafts accepted): the last target row ``p_k``."""
    return _positive(enumerate(p[-1]))


def first_token_law(p: np.ndarray) -> dict:
    """The law of the first emitted token, whatever happens after: exactly ``p_0``."""
    return _positive(enumerate(p[0]))


def emission_law(p: np.ndarray, q: np.ndarray) -> dict:
    """The joint law of the emitted tokens: ``{(d_0, …, d_{j−1}, t): probability}``.

    An outcome of length ``j + 1`` is ``j`` accepted drafts then the token ``t`` emitted
    at position ``j`` (a correction when ``j < k``, the bonus when ``j = k``). Its
    probability is ``Π_{i<j} min(p_i(d_i), q_i(d_i))`` times ``max(0, p_j(t) − q_j(t))``,
    or times ``p_k(t)`` for ``j = k``. There are up to ``V + V² + … + V^{k+1}`` outcomes.
    """
    return round_law(overlap(p, q), np.vstack([rejected_mass(p, q), p[-1:]]))


def round_law(accepted: np.ndarray, last: np.ndarray) -> dict:
    """The law of a round's emitted tokens, from the mass of each accepted draft at each
    position ``[k, V]`` and of each token emitted after ``j`` acceptances ``[k + 1, V]``."""
    law = {}
    prefixes = {(): 1.0}  # accepted drafts so far -> their probability
    for j in range(len(accepted) + 1):
        for prefix, mass in prefixes.items():
            for t in np.flatnonzero(last[j]):
                law[prefix + (int(t),)] = mass * float(last[j, t])
        if j < len(accepted):
            prefixes = {prefix + (int(d),): mass * float(accepted[j, d])
                        for prefix, mass in prefixes.items() for d in np.flatnonzero(accepted[j])}
    return law


def _positive(items) -> dict:
    return {int(o): float(v) for o, v in items if v > 0}
