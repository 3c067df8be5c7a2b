"""The (p, q) cases the verifier checks draw rounds from.

Each case gives target rows ``p`` ``[k+1, V]`` and draft rows ``q`` ``[k, V]`` (float64,
each row a distribution), different at every position, so that a verifier reading the
wrong row shows. The families cover what speculative decoding meets in practice: skewed
and flat distributions, a drafter nearly equal to the target, disjoint supports, target
zeros under the drafter's mass, and one-hot rows (greedy decoding). The cases are fixed
(built from a constant seed), so the power measured for them is the power of the check.
A verifier of ``m`` drafts of one position (lesson 9) has cases of its own kind,
``MultiDraftCase``.
"""
from dataclasses import dataclass

import numpy as np

from grader.oracle.cases import LawCase

CONSTRUCTION_SEED = 20230517


@dataclass(frozen=True, eq=False)
class RoundCase(LawCase):
    """A round of ``k`` drafts: ``p`` ``[k+1, V]`` the target's rows (the last for the bonus
    token), ``q`` ``[k, V]`` the drafter's, each row a distribution."""
    p: np.ndarray
    q: np.ndarray

    @property
    def k(self) -> int:
        return len(self.q)

    @property
    def vocab(self) -> int:
        return int(self.p.shape[-1])


@dataclass(frozen=True, eq=False)
class MultiDraftCase(LawCase):
    """``m`` i.i.d. drafts of one position: ``p`` ``[V]`` the target's distribution, ``q``
    ``[V]`` the drafter's, from which the drafts are drawn."""
    p: np.ndarray
    q: np.ndarray
    m: int


def dirichlet(rng, rows: int, vocab: int, concentration: float) -> np.ndarray:
    return rng.dirichlet(np.full(vocab, concentration), size=rows)


def one_hot(rng, rows: int, vocab: int) -> np.ndarray:
    return np.eye(vocab)[rng.integers(vocab, size=rows)]


def with_zeros(rng, rows: np.ndarray, zeros: int) -> np.ndarray:
    """``rows`` with ``zeros`` random entries of each row set to 0, renormalised."""
    rows = rows.copy()
    for row in rows:
        row[rng.choice(len(row), size=zeros, replace=False)] = 0.0
    return rows / rows.sum(axis=-1, keepdims=True)


def near(rng, rows: np.ndarray, weight: float) -> np.ndarray:
    """A drafter close to ``rows``: ``(1 − weight) · rows + weight · Dirichlet(1)``."""
    return (1 - weight) * rows + weight * dirichlet(rng, len(rows), rows.shape[-1], 1.0)


def disjoint(rng, rows: int, vocab: int, lower: bool) -> np.ndarray:
    """Rows supported on the lower (or upper) half of the vocabulary only."""
    columns = np.arange(vocab)[: vocab // 2] if lower else np.arange(vocab)[vocab // 2 :]
    out = np.zeros((rows, vocab))
    out[:, columns] = dirichlet(rng, rows, len(columns), 1.0)
    return out


def build_cases(draws: int) -> list[RoundCase]:
    """The fixed cases, each drawn ``draws`` times by a law test."""
    rng = np.random.default_rng(CONSTRUCTION_SEED)
    skewed3 = dirichlet(rng, 4, 6, 0.3)
    nearly = dirichlet(rng, 6, 5, 2.0)
    target_one_hot = one_hot(rng, 4, 6)
    mixed_p = dirichlet(rng, 6, 5, 1.0)
    mixed_q = np.vstack([
        near(rng, mixed_p[:1], 0.1),  # nearly equal
        dirichlet(rng, 1, 5, 0.3),  # skewed
        dirichlet(rng, 1, 5, 20.0),  # flat
        one_hot(rng, 1, 5),  # a greedy drafter
        with_zeros(rng, dirichlet(rng, 1, 5, 1.0), 2),  # sparse drafter
    ])
    return [
        RoundCase("skewed-k1", "skewed, k=1", draws, dirichlet(rng, 2, 6, 0.3), dirichlet(rng, 1, 6, 0.3)),
        RoundCase("skewed-k3", "skewed, k=3", draws, skewed3, dirichlet(rng, 3, 6, 0.3)),
        RoundCase("flat-k5", "flat, k=5", draws, dirichlet(rng, 6, 5, 20.0), dirichlet(rng, 5, 5, 20.0)),
        RoundCase("nearly-equal-k5", "nearly equal, k=5", draws, nearly, near(rng, nearly[:5], 0.15)),
        RoundCase("disjoint-k1", "disjoint supports, k=1", draws, disjoint(rng, 2, 6, True),
                  disjoint(rng, 1, 6, False)),
        RoundCase("target-zeros-k3", "target zeros under the drafter's mass, k=3", draws,
                  with_zeros(rng, dirichlet(rng, 4, 6, 1.0), 2), dirichlet(rng, 3, 6, 1.0)),
        RoundCase("greedy-drafter-k3", "greedy drafter (one-hot q), k=3", draws, dirichlet(rng, 4, 6, 1.0),
                  one_hot(rng, 3, 6)),
        RoundCase("greedy-target-k3", "greedy target (one-hot p), k=3", draws, target_one_hot,
                  dirichlet(rng, 3, 6, 1.0)),
        RoundCase("mixed-k5", "a different family at every position, k=5", draws, mixed_p, mixed_q),
    ]


def equal_case(rounds: int) -> RoundCase:
    """``p`` ``[5, 6]`` and ``q == p[:-1]``: every draft must be accepted, in each of ``rounds``."""
    p = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 1), 5, 6, 1.0)
    return RoundCase("equal", "p == q", rounds, p, p[:-1].copy())


def zero_target_case(rounds: int) -> tuple[RoundCase, np.ndarray]:
    """``p`` ``[4, 6]``, ``q`` ``[3, 6]`` and the drafts ``[rounds, 3]`` of rounds that must
    all stop at 1: ``p_0 == q_0``, so draft 0 is always accepted; draft 1 is a token that
    ``q_1`` proposes and ``p_1`` gives probability 0, so it is never accepted."""
    vocab = 6
    p = np.full((4, vocab), 1.0 / vocab)
    p[1] = [0.0, 0.0, 0.0, 0.5, 0.3, 0.2]
    q = p[:3].copy()
    q[1] = [0.3, 0.3, 0.3, 0.05, 0.04, 0.01]
    drafts = np.array([[i % vocab, i % 3, (7 * i) % vocab] for i in range(rounds)])
    return RoundCase("zero-target", "p = 0", rounds, p, q), drafts
