"""The deterministic_children check's expected values: a one-hot target's answers, and the
law of ``(index, token)`` (grader/oracle/tree_laws.py): the token follows p, the index is
its place among the children."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from grader.judged.verifiers import ChildrenCase as Case
from grader.judged.verifiers import LawRounds, OneHot
from grader.oracle import stats, tree_laws
from grader.oracle.stats import LAW_TEST

if TYPE_CHECKING:  # types only: a judge reads what the decider's check run gives it, never its code
    from grader.checks.harness import CheckRun

TOKEN_HINT = ("the token must follow p exactly: each child is a point mass, so it is accepted with the "
              "probability the residual gives it, and a rejected child is removed from the residual for "
              "good (verification without replacement).",
              "try the children in order: child i is accepted with probability r_i(c_i), where r_0 = p "
              "and r_(i+1) is r_i with c_i set to 0, renormalised; when all are rejected the token comes "
              "from r_m, p without any child. Usual causes: each child tested against p itself (with "
              "replacement), min(1, p/q) as if the children were samples of q, the final token drawn "
              "from p, or one uniform shared by all children.",
              "u = torch.rand(m, generator=generator); S = p.sum() − cumsum(p[children]) + p[children]; "
              "accept iff u · S < p[children]; the last candidate is sample(max_fn(p.index_fill(0, "
              "children, 0)))")
INDEX_HINT = ("index m means every child was rejected, and then the token comes from p without the "
              "children: it can never be one of them")
COVER_HINT = ("when the children cover p's support, the last one left holds all of the residual's mass: "
              "r_(m−1)(c_(m−1)) = 1, so it is always accepted. Rejecting it means the acceptance was not "
              "renormalised: child i is accepted with probability p(c_i) / S_i, S_i = 1 − p(c_0) − … − "
              "p(c_(i−1)), not p(c_i)")


def one_hot_target(check: CheckRun, answers: OneHot) -> None:
    """With p the one-hot of a token, the child equal to it is accepted (index m if none is),
    and the token is always that token."""
    token, children, device, pairs = answers.token, answers.children, answers.device, answers.pairs
    expected = (children.index(token) if token in children else len(children), token)
    wrong = sorted({pair for pair in pairs if pair != expected})
    check.require("a one-hot target accepts exactly its argmax", not wrong,
                  f"with p the one-hot of token {token} and children {children}, returned {wrong[:3]}; "
                  f"expected {expected} every time",
                  "r_i(c_i) is 1 for the argmax and 0 for every other token; after a rejection the "
                  "residual of a one-hot p is that same one-hot", case=f"children {children}, {device}")


@functools.cache
def law(case: Case) -> dict:
    """The exact law of ``(index, token)``, once per case (a case is its own key)."""
    return tree_laws.deterministic_children_law(case.p, case.children)


def covers_support(case: Case) -> bool:
    """Whether every token of positive p is a child: then all m cannot be rejected."""
    return set(map(int, (case.p > 0).nonzero()[0])) <= set(case.children)


def laws(check: CheckRun, rounds: LawRounds[Case]) -> None:
    """The token's law, and the index as a function of it."""
    case, pairs = rounds.case, rounds.outcomes
    m = len(case.children)
    misplaced = sorted({(i, t) for i, t in pairs if i == m and t in case.children})
    check.require(f"{case.label}: index m only for a token that is no child", not misplaced,
                  f"returned (index, token) {misplaced[:3]} with children {list(case.children)}",
                  COVER_HINT if covers_support(case) else INDEX_HINT)
    check.test(f"{case.label}: law of the token (must be p)",
               stats.goodness_of_fit([t for _, t in pairs], tree_laws.marginal(law(case), lambda o: o[1]),
                                     "token", **LAW_TEST), TOKEN_HINT)
