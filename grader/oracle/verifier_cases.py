"""The (p, q) cases the verifier checks draw rounds from.

Each case gives target rows ``p`` ``[k+1, V]`` and draft rows ``q`` ``[k, V]`` (float64,
each row a distribution), different at every position, so that a verifier reading the
wrong row shows. The families cover what speculative decoding meets in practice: skewed
and flat distributions, a drafter nearly equal to the target, disjoint supports, target
zeros under the drafter's mass, and one-hot rows (greedy decoding). The cases are fixed
(built from a constant seed), so the power measured for them is the power of the check.
"""
from dataclasses import dataclass

import numpy as np

CONSTRUCTION_SEED = 20230517


@dataclass(frozen=True, eq=False)
class Case:
    name: str
    p: np.ndarray  # [k+1, V] target rows; the last one is for the bonus token
    q: np.ndarray  # [k, V] draft rows
    draws: int  # rounds drawn for the law tests

    @property
    def k(self) -> int:
        return len(self.q)

    @property
    def vocab(self) -> int:
        return self.p.shape[-1]


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


def build_cases(draws: int) -> list[Case]:
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
        Case("skewed, k=1", dirichlet(rng, 2, 6, 0.3), dirichlet(rng, 1, 6, 0.3), draws),
        Case("skewed, k=3", skewed3, dirichlet(rng, 3, 6, 0.3), draws),
        Case("flat, k=5", dirichlet(rng, 6, 5, 20.0), dirichlet(rng, 5, 5, 20.0), draws),
        Case("nearly equal, k=5", nearly, near(rng, nearly[:5], 0.15), draws),
        Case("disjoint supports, k=1", disjoint(rng, 2, 6, True), disjoint(rng, 1, 6, False), draws),
        Case("target zeros under the drafter's mass, k=3",
             with_zeros(rng, dirichlet(rng, 4, 6, 1.0), 2), dirichlet(rng, 3, 6, 1.0), draws),
        Case("greedy drafter (one-hot q), k=3", dirichlet(rng, 4, 6, 1.0), one_hot(rng, 3, 6), draws),
        Case("greedy target (one-hot p), k=3", target_one_hot, dirichlet(rng, 3, 6, 1.0), draws),
        Case("a different family at every position, k=5", mixed_p, mixed_q, draws),
    ]


def equal_distributions(rows: int = 5, vocab: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """``(p [rows, V], q [rows − 1, V])`` with ``q == p[:-1]``: every draft must be accepted."""
    p = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 1), rows, vocab, 1.0)
    return p, p[:-1].copy()


def zero_target_rounds(rounds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p [4, 6], q [3, 6], drafts [rounds, 3])`` where every round must stop at 1.

    ``p_0 == q_0``, so draft 0 is always accepted; draft 1 is a token that ``q_1`` proposes
    and ``p_1`` gives probability 0, so it is never accepted.
    """
    vocab = 6
    p = np.full((4, vocab), 1.0 / vocab)
    p[1] = [0.0, 0.0, 0.0, 0.5, 0.3, 0.2]
    q = p[:3].copy()
    q[1] = [0.3, 0.3, 0.3, 0.05, 0.04, 0.01]
    drafts = np.array([[i % vocab, i % 3, (7 * i) % vocab] for i in range(rounds)])
    return p, q, drafts
