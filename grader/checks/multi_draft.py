"""Check `multi_draft_sampling`, declared as a verifier suite spec (grader/checks/verifier_rounds.py):
the returned pair, q == p, drafts the target gives probability 0, the ``generator`` argument;
then a one-hot target's answers and the exact law of ``(index, token)`` over fixed cases
(grader/oracle/tree_laws.py), the decider's alone (grader/judges/multi_draft.py)."""
from typing import Any

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import (CONSTRUCTION_SEED, MultiDraftCase, dirichlet, disjoint, near, one_hot,
                                          with_zeros)
from grader.judged.verifiers import OneHotAnswers

VOCAB = 6
LAW_DRAWS = 1000
SMALL_DRAWS = 250  # calls for each deterministic property


def build_cases() -> list[MultiDraftCase]:
    rng = np.random.default_rng([CONSTRUCTION_SEED, 9])

    def row(concentration: float) -> np.ndarray:
        return dirichlet(rng, 1, VOCAB, concentration)[0]

    def case(id: str, label: str, p: np.ndarray, q: np.ndarray, m: int, draws: int = LAW_DRAWS) -> MultiDraftCase:
        return MultiDraftCase(id, label, draws, p, q, m)

    nearly = row(2.0)
    return [
        case("skewed-m1", "skewed, m=1", row(0.3), row(0.3), 1),
        case("skewed-m2", "skewed, m=2", row(0.3), row(0.3), 2),
        case("skewed-m3", "skewed, m=3", row(0.3), row(0.3), 3),
        case("flat-m3", "flat, m=3", row(20.0), row(20.0), 3),
        case("nearly-equal-m2", "nearly equal, m=2", nearly, near(rng, nearly[None], 0.15)[0], 2),
        case("disjoint-m2", "disjoint supports, m=2", disjoint(rng, 1, VOCAB, True)[0],
             disjoint(rng, 1, VOCAB, False)[0], 2),
        case("target-zeros-m3", "target zeros under the drafter's mass, m=3",
             with_zeros(rng, dirichlet(rng, 1, VOCAB, 1.0), 2)[0], row(1.0), 3),
        case("greedy-target-m2", "greedy target (one-hot p), m=2", one_hot(rng, 1, VOCAB)[0], row(1.0), 2),
        case("greedy-drafter-m2", "greedy drafter (one-hot q), m=2", row(1.0), one_hot(rng, 1, VOCAB)[0], 2),
        # both drafts often accepted with a middling probability: one uniform drawn for all
        # drafts makes their acceptances dependent and moves the law by TV 0.05 (0.005 or
        # less in the cases above); 2,000 draws catch it with probability > 0.999
        case("middling-m2", "middling acceptances, m=2", normalised([0.133, 0.609, 0.004, 0.153, 0.063, 0.037]),
             normalised([0.017, 0.555, 0.012, 0.286, 0.107, 0.024]), 2, draws=2000),
    ]


def normalised(values: list[float]) -> np.ndarray:
    return np.array(values) / sum(values)


CASES = build_cases()
EQUAL_ROW = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 1), 1, VOCAB, 1.0)[0]
EQUAL = MultiDraftCase("equal", "q == p", SMALL_DRAWS, EQUAL_ROW, EQUAL_ROW.copy(), 3)
ZERO_TARGET = MultiDraftCase("zero-target", "p = 0", SMALL_DRAWS, np.array([0.0, 0.0, 0.0, 0.5, 0.3, 0.2]),
                             np.array([0.3, 0.3, 0.3, 0.05, 0.04, 0.01]), 3)
ZERO_TARGET_DRAFTS = torch.tensor([[i % 3, (i + 1) % 3, (7 * i) % 3] for i in range(SMALL_DRAWS)])
ONE_HOT_TOKEN = 4
ONE_HOT_DRAFTS = torch.tensor([[0, 4, 2], [3, 1, 4], [4, 4, 0], [1, 2, 3], [5, 5, 5]] * 20)


class Adapter(rounds.VerifierAdapter[MultiDraftCase]):
    """``multi_draft_sampling(p, q, drafts)`` on a case's rows: m i.i.d. drafts of q per call,
    each call's ``(index, token)`` the outcome its laws are tested on."""
    SMALL_DRAWS = SMALL_DRAWS

    def draw(self, check: CheckRun, case: MultiDraftCase, draws: int, *key: object) -> torch.Tensor:
        """``[draws, m]``: m i.i.d. drafts of q per call."""
        return rounds.draw_drafts(check, np.repeat(case.q[None], case.m, axis=0), draws, *key)

    def answers(self, check: CheckRun, verify: rounds.Verify, case: MultiDraftCase, drafts: torch.Tensor, what: str,
                device: str = "cpu", **keywords: Any) -> list[tuple[int, int]]:
        p, q = (torch.from_numpy(row).to(device) for row in (case.p, case.q))
        results = rounds.call_rounds(check, verify, drafts.to(device), arrange, p, q, what=what, **keywords)
        return rounds.index_token_pairs(check, results, drafts.tolist(), VOCAB, p.device, what, "draft")

    def stops(self, answer: tuple[int, int]) -> list[int]:
        return [answer[0]]


def arrange(drafts: torch.Tensor, target: torch.Tensor, proposal: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return target, proposal, drafts


def one_hot_target(check: CheckRun, adapter: rounds.VerifierAdapter[MultiDraftCase], verify: rounds.Verify) -> None:
    """Greedy decoding: with a one-hot p the draft equal to its argmax is accepted, no other."""
    p = np.eye(VOCAB)[ONE_HOT_TOKEN]
    q = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 2), 1, VOCAB, 1.0)[0]
    case = MultiDraftCase("one-hot-target", "one-hot p", len(ONE_HOT_DRAFTS), p, q, 3)
    check.seed_everything(case.label)
    pairs = adapter.answers(check, verify, case, ONE_HOT_DRAFTS, f"(one-hot target on token {ONE_HOT_TOKEN})")
    check.judge("one_hot_target", OneHotAnswers(ONE_HOT_TOKEN, ONE_HOT_DRAFTS.tolist(), pairs))


SUITE = rounds.Suite("multi_draft_sampling", Adapter(judge="laws"), (
    rounds.EveryCall("q == p accepts the first draft", EQUAL, 0, "(q == p, m = 3, on {device})",
                     "index was {wrong} in some of {calls} calls where proposal_dist == target_dist; it must be 0 "
                     "every time", rounds.EQUAL_HINT),
    rounds.EveryCall("a draft with p = 0 is never accepted", ZERO_TARGET, 3, "(every draft has p = 0)",
                     "index was {wrong}; every draft has target probability 0 here, so every call must return "
                     "index m = {stop} (and a token from the residual)", rounds.ZERO_TARGET_HINT,
                     per_device=False, drafts=ZERO_TARGET_DRAFTS),
    one_hot_target,
    rounds.Generator(CASES[3]),  # flat, m = 3: many possible answers
    rounds.Laws(tuple(CASES))))


def run(check: CheckRun) -> None:
    SUITE.run(check)
