"""The verifier family's judged values: what its checks hand their judges. The check run, as a
``Recorder`` of properties, and one of these frozen dataclasses, the answers the learner's
code gave and what they are compared with (and deterministic_children's law case, which its
judge reads), with the one hint both halves show (expected_acceptance's).
"""
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, Protocol, TypeVar

import numpy as np
import torch

from grader.oracle.cases import LawCase
from grader.oracle.stats import TestResult
from grader.oracle.verifier_cases import RoundCase

Hint = str | tuple[str, ...]  # grader.verdict.Hint: a hint, or its levels (the idea first)
C = TypeVar("C", bound=LawCase)


class Recorder(Protocol):
    """What a judge records properties through: the check run that calls it
    (grader/checks/harness.py's ``CheckRun``, which a judge does not import)."""

    def require(self, prop: str, ok: bool, message: str, hint: Hint = "", table: Any = None, *,
                case: str = "") -> bool: ...

    def test(self, prop: str, result: TestResult, hint: Hint = "", *, case: str = "") -> None: ...

    def fail(self, prop: str, message: str, hint: Hint = "", table: Any = None, *, case: str = "") -> NoReturn: ...


@dataclass(frozen=True)
class LawRounds(Generic[C]):
    """A law judge's argument: a law case and the outcomes of the rounds drawn from it (the
    emitted-token tuples of a verifier of k drafts, the ``(index, token)`` pairs of a
    verifier of m drafts of one position)."""
    case: C
    outcomes: list[tuple[int, ...]]


@dataclass(frozen=True)
class RowRounds:
    """batched_verify's law judge's argument: each row's law case and outcomes, and the
    outcomes of the twin of the first row (the last row of the batch)."""
    rows: list[LawRounds[RoundCase]]
    twin: list[tuple[int, ...]]


@dataclass(frozen=True)
class OneHotAnswers:
    """multi_draft's one-hot judge's argument: p is the one-hot of ``token``; the drafts of
    each call and the ``(index, token)`` it returned."""
    token: int
    drafts: list[list[int]]
    pairs: list[tuple[int, int]]


@dataclass(frozen=True)
class Answered:
    """greedy_match's judge's argument, for one family of target rows on one dtype and device
    (``case``): for each k, the target rows ``[k + 1, V]``, the drafts ``[n, k]`` and the
    ``n`` ``(rejected_idx, token)`` pairs the learner returned."""
    case: str
    rounds: list[tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]]


@dataclass(frozen=True)
class Outputs:
    """max_fn's judge's argument: ``prop`` holds on ``case`` when each of ``outputs`` is
    ``norm(max(0, x))`` of its tensor in ``inputs`` (same shapes, any dtype and device)."""
    prop: str
    inputs: list[torch.Tensor]
    outputs: list[torch.Tensor]
    hint: Hint
    case: str = ""


ACCEPTANCE_TOLERANCE = 1e-12  # expected_acceptance: |α − (1 − TV)| allowed, and |α(p, q) − α(q, p)|
ACCEPTANCE_HINT = (
    "α is the chance that a draft x ~ q survives the verifier, which accepts it with probability "
    "min(1, p(x)/q(x)): one number per position, an expectation over the whole vocabulary (the last dim). "
    "It is not q at the drafted token, nor Σ q², nor the mean of p/q.",
    "Σ_x q(x) · min(1, p(x)/q(x)) = Σ_x min(p(x), q(x)), which also equals 1 − ½ Σ |p − q|.",
    "torch.minimum(p, q).sum(dim=-1)")


@dataclass(frozen=True)
class Alphas:
    """expected_acceptance's judge's argument: the learner's ``alpha`` ``[...]`` (float64, on
    the CPU) for the rows ``p``, ``q`` ``[..., V]`` of the case ``name`` (``what`` says where,
    in a message)."""
    name: str
    p: torch.Tensor
    q: torch.Tensor
    alpha: torch.Tensor
    what: str


@dataclass(frozen=True)
class Distributions:
    """processors' judges' argument: ``probs`` (float64, the ``logits``' shape ``[5, V]``) that
    the learner's processor ``name(**kwargs)`` gave, shown as ``label``, with its ``hint``."""
    label: str
    name: str
    kwargs: dict[str, float]
    logits: torch.Tensor
    probs: torch.Tensor
    hint: Hint


@dataclass(frozen=True, eq=False)
class ChildrenCase(LawCase):
    """deterministic_children's law case: point-mass children of one position: ``p`` ``[V]``
    the target's distribution, ``children`` m distinct tokens, in the order they are tried."""
    p: np.ndarray
    children: tuple[int, ...]


@dataclass(frozen=True)
class OneHot:
    """deterministic_children's one-hot judge's argument: p is the one-hot of ``token``; the
    ``(index, token)`` of each call with ``children`` on ``device``."""
    token: int
    children: list[int]
    device: str
    pairs: list[tuple[int, int]]
