"""Check `verify_deterministic_children`, declared as a verifier suite spec
(grader/checks/verifier_rounds.py): the returned pair, a one-hot target, children the target
gives probability 0, the ``generator`` argument; then the exact law of ``(index, token)``
over fixed cases: the token follows p, and the index is its place among the children
(grader/oracle/tree_laws.py), the decider's alone (grader/judges/deterministic_children.py)."""
from typing import Any

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.judged.verifiers import ChildrenCase as Case
from grader.judged.verifiers import OneHot
from grader.oracle.verifier_cases import CONSTRUCTION_SEED, dirichlet, with_zeros

VOCAB = 6
LAW_DRAWS = 1500
SMALL_DRAWS = 250  # calls for each deterministic property


def build_cases() -> list[Case]:
    rng = np.random.default_rng([CONSTRUCTION_SEED, 11])

    def row(concentration: float) -> np.ndarray:
        return dirichlet(rng, 1, VOCAB, concentration)[0]

    def case(id: str, label: str, p: np.ndarray, children: tuple[int, ...]) -> Case:
        return Case(id, label, LAW_DRAWS, p, children)

    skewed = row(0.5)
    by_mass = tuple(int(t) for t in np.argsort(-skewed))  # the head's top-k when it agrees with p
    return [
        case("skewed-m1", "skewed, m=1", skewed, by_mass[:1]),
        case("skewed-m3", "skewed, children in p's order, m=3", skewed, by_mass[:3]),
        case("reversed-m3", "skewed, children in reverse order, m=3", skewed, by_mass[:3][::-1]),
        case("flat-m4", "flat, m=4", row(20.0), (5, 0, 3, 1)),
        case("zero-child-m3", "a child of probability 0, m=3", with_zeros(rng, row(1.0)[None], 2)[0], (0, 1, 4)),
        # every token a child: the residual after the last one is empty, and never drawn
        case("cover-m6", "children cover the vocabulary, m=6", row(1.0), (2, 4, 0, 5, 1, 3)),
    ]


CASES = build_cases()
ZERO_TARGET = Case("zero-target", "p = 0", SMALL_DRAWS, np.array([0.0, 0.0, 0.0, 0.5, 0.3, 0.2]), (1, 0, 2))
ONE_HOT_TOKEN = 4


class Adapter(rounds.VerifierAdapter[Case]):
    """``verify_deterministic_children(p, children)`` on a case: the same children every
    call, each call's ``(index, token)`` the outcome its laws are tested on."""
    SMALL_DRAWS = SMALL_DRAWS

    def draw(self, check: CheckRun, case: Case, draws: int, *key: object) -> torch.Tensor:
        """``[draws, m]``: the case's children, the same in every call (nothing is drawn)."""
        return torch.tensor(case.children).expand(draws, -1)

    def answers(self, check: CheckRun, verify: rounds.Verify, case: Case, drafts: torch.Tensor, what: str,
                device: str = "cpu", **keywords: Any) -> list[tuple[int, int]]:
        p = torch.from_numpy(case.p).to(device)
        results = rounds.call_rounds(check, verify, drafts.to(device), arrange, p, what=what, **keywords)
        return rounds.index_token_pairs(check, results, drafts.tolist(), VOCAB, p.device, what, "child")

    def stops(self, answer: tuple[int, int]) -> list[int]:
        return [answer[0]]


def arrange(children: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return target, children


def one_hot_target(check: CheckRun, adapter: rounds.VerifierAdapter[Case], verify: rounds.Verify) -> None:
    """Greedy decoding: with a one-hot p the child equal to its argmax is accepted, and when
    no child is, the token is still the argmax."""
    for device in rounds.devices():
        for children in ([0, 4, 2], [3, 1, 5]):
            case = Case("one-hot-target", "one-hot p", SMALL_DRAWS, np.eye(VOCAB)[ONE_HOT_TOKEN], tuple(children))
            check.seed_everything(case.label, device, *children)
            pairs = adapter.answers(check, verify, case, adapter.draw(check, case, SMALL_DRAWS),
                                    f"(one-hot target on token {ONE_HOT_TOKEN}, children {children}, on {device})",
                                    device)
            check.judge("one_hot_target", OneHot(ONE_HOT_TOKEN, children, device, pairs))


SUITE = rounds.Suite("verify_deterministic_children", Adapter(judge="laws"), (
    one_hot_target,
    rounds.EveryCall("a child with p = 0 is never accepted", ZERO_TARGET, 3, "(every child has p = 0)",
                     "index was {wrong}; every child has target probability 0 here, so every call must return "
                     "index m = 3 (and a token of p's support)",
                     ("a child the target gives probability 0 can never be accepted: it is accepted with "
                      "probability r_i(c_i) = 0",
                      "the test must be strict: with u drawn from [0, 1), u <= r accepts a p = 0 child whenever u "
                      "is 0",
                      "accept iff u · S_i < p(c_i), S_i the mass of p not yet removed"),
                     per_device=False, drafts=torch.tensor(ZERO_TARGET.children).expand(SMALL_DRAWS, -1)),
    rounds.Generator(CASES[3]),  # flat, m = 4: many possible answers per call
    rounds.Laws(tuple(CASES), unless_failed=True)))


def run(check: CheckRun) -> None:
    SUITE.run(check)
