"""The tree suite's judge half: a learner's speculation tree (dynamic_tree, suffix_tree)
against the reference's, node by node (grader/checks/tree_suite.py is the runner's half)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from grader.verdict import Hint

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun

Nodes = list[tuple[int, int]]  # (parent, token) of each node, in the order made


def require_same_tree(check: CheckRun, prop: str, got: Nodes, expected: Nodes, why: str, hint: Hint,
                      case: str) -> None:
    """``prop``: the nodes ``got`` are the reference's; the message shows both and the first
    node where they part, then ``why`` (what the difference names, or "")."""
    first = next((i for i, (g, e) in enumerate(zip(got, expected)) if g != e), min(len(got), len(expected)))
    check.require(prop, got == expected, f"(parent, token) of {len(got)} nodes: {got}; expected {len(expected)}: "
                  f"{expected}; the first difference is at node {first}{why}", hint, case=case)
