"""The loss suite's judge half: a learner's loss against the expected value, named by the
usual mistake that explains it when it is wrong (grader/judges/mistakes.py), and gradients
or weights against the expected ones (grader/checks/loss_suite.py is the runner's half)."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import torch

from grader.judges import mistakes
from grader.verdict import Hint

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun


def require_value(check: CheckRun, got: float, expected: float, tolerance: float, hint: Hint, case: str,
                  candidates: Callable[[], mistakes.Candidates], *, source: str = "the formula", where: str = "",
                  named_to: float | None = None) -> bool:
    """The property "value": ``got`` within ``tolerance`` of ``expected``; a wrong one that
    one of ``candidates()`` explains (to ``named_to``, by default ``tolerance``) is named.
    ``where`` follows the value in the message, ``source`` says what gives the expected one."""
    right = abs(got - expected) <= tolerance
    named = "" if right else mistakes.named_mistake(got, expected, candidates(),
                                                  tolerance if named_to is None else named_to)
    check.require("value", right, f"gave {got:.10f}{where}; {source} gives {expected:.10f}{named}", hint, case=case)
    return right


def gap(got: torch.Tensor | None, expected: torch.Tensor) -> float:
    """The largest entry of ``|got − expected|``, no gradient (None) counting as zeros;
    infinite for a tensor of another shape."""
    got = torch.zeros_like(expected) if got is None else got
    if got.shape != expected.shape:
        return math.inf
    return float((got.double() - expected.double()).abs().max())


def largest_gap(got: object, expected: Mapping[str, torch.Tensor]) -> float:
    """``gap``'s largest over tensors by name (gradients, weights); infinite where ``got`` is
    not such a mapping with the same names."""
    if not (isinstance(got, Mapping) and got.keys() == expected.keys()
            and all(value is None or isinstance(value, torch.Tensor) for value in got.values())):
        return math.inf
    return max(gap(got[name], value) for name, value in expected.items())
