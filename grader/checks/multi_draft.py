"""Check `multi_draft_sampling`: the returned pair, q == p, drafts the target gives
probability 0, the ``generator`` argument; then a one-hot target's answers and the exact law
of ``(index, token)`` over fixed cases (grader/oracle/tree_laws.py), the decider's alone
(grader/judges/multi_draft.py)."""
from dataclasses import dataclass

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import CONSTRUCTION_SEED, dirichlet, disjoint, near, one_hot, with_zeros

VOCAB = 6
LAW_DRAWS = 1000
SMALL_DRAWS = 250  # rounds for each deterministic property

@dataclass(frozen=True, eq=False)
class Case:
    name: str
    p: np.ndarray  # [V] the target's distribution
    q: np.ndarray  # [V] the drafter's, from which the m drafts are drawn
    m: int
    draws: int = LAW_DRAWS


def build_cases() -> list[Case]:
    rng = np.random.default_rng([CONSTRUCTION_SEED, 9])

    def row(concentration):
        return dirichlet(rng, 1, VOCAB, concentration)[0]

    nearly = row(2.0)
    return [
        Case("skewed, m=1", row(0.3), row(0.3), 1),
        Case("skewed, m=2", row(0.3), row(0.3), 2),
        Case("skewed, m=3", row(0.3), row(0.3), 3),
        Case("flat, m=3", row(20.0), row(20.0), 3),
        Case("nearly equal, m=2", nearly, near(rng, nearly[None], 0.15)[0], 2),
        Case("disjoint supports, m=2", disjoint(rng, 1, VOCAB, True)[0], disjoint(rng, 1, VOCAB, False)[0], 2),
        Case("target zeros under the drafter's mass, m=3",
             with_zeros(rng, dirichlet(rng, 1, VOCAB, 1.0), 2)[0], row(1.0), 3),
        Case("greedy target (one-hot p), m=2", one_hot(rng, 1, VOCAB)[0], row(1.0), 2),
        Case("greedy drafter (one-hot q), m=2", row(1.0), one_hot(rng, 1, VOCAB)[0], 2),
        # both drafts often accepted with a middling probability: one uniform drawn for all
        # drafts makes their acceptances dependent and moves the law by TV 0.05 (0.005 or
        # less in the cases above); 2,000 draws catch it with probability > 0.999
        Case("middling acceptances, m=2", normalised([0.133, 0.609, 0.004, 0.153, 0.063, 0.037]),
             normalised([0.017, 0.555, 0.012, 0.286, 0.107, 0.024]), 2, draws=2000),
    ]


def normalised(values: list[float]) -> np.ndarray:
    return np.array(values) / sum(values)


CASES = build_cases()


def run(check: CheckRun) -> None:
    verify = check.function("multi_draft_sampling")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        check_equal_distributions(check, verify, device)
    check_zero_target_drafts(check, verify)
    check_one_hot_target(check, verify)
    rounds.generator_property(check, ADAPTER, verify, CASES[3])  # flat, m = 3: many possible answers
    for case in CASES:
        rounds.law_properties(check, ADAPTER, verify, case)


def arrange(drafts, target, proposal):
    return target, proposal, drafts


class Adapter(rounds.VerifierAdapter):
    """``multi_draft_sampling(p, q, drafts)`` on a case's rows: m i.i.d. drafts of q per call,
    each call's ``(index, token)`` the outcome its laws are tested on."""
    SMALL_DRAWS = SMALL_DRAWS

    def draw(self, check: CheckRun, case: Case, draws: int, *key) -> torch.Tensor:
        return draws_of(check, case.q, case.m, draws, *key)

    def answers(self, check: CheckRun, verify, case: Case, drafts, what: str, **keywords) -> list:
        return verified(check, verify, torch.from_numpy(case.p), torch.from_numpy(case.q), drafts, what, **keywords)


ADAPTER = Adapter(judge="laws")


@dataclass(frozen=True)
class OneHotAnswers:
    """The one-hot judge's argument: p is the one-hot of ``token``; the drafts of each call
    and the ``(index, token)`` it returned."""
    token: int
    drafts: list[list[int]]
    pairs: list[tuple[int, int]]


def verified(check: CheckRun, verify, p, q, drafts, what: str, **keywords) -> list[tuple[int, int]]:
    """The ``(index, token)`` ints of one call per row of ``drafts`` ``[n, m]``."""
    results = rounds.call_rounds(check, verify, drafts, arrange, p, q, what=what, **keywords)
    return rounds.index_token_pairs(check, results, drafts.tolist(), VOCAB, p.device, what, "draft")


def draws_of(check: CheckRun, q: np.ndarray, m: int, draws: int, *key) -> torch.Tensor:
    """``[draws, m]``: m i.i.d. drafts of q per call."""
    return rounds.draw_drafts(check, np.repeat(q[None], m, axis=0), draws, *key)


def check_equal_distributions(check: CheckRun, verify, device: str) -> None:
    """q == p: the first draft is always accepted (min(1, p/q) = 1), and nothing is NaN."""
    p = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 1), 1, VOCAB, 1.0)[0]
    drafts = draws_of(check, p, 3, SMALL_DRAWS, "q == p").to(device)
    target = torch.from_numpy(p).to(device)
    check.seed_everything("q == p", device)
    pairs = verified(check, verify, target, target.clone(), drafts, f"(q == p, m = 3, on {device})")
    wrong = sorted({i for i, _ in pairs if i != 0})
    check.require("q == p accepts the first draft", not wrong,
                  f"index was {wrong} in some of {SMALL_DRAWS} calls where proposal_dist == "
                  "target_dist; it must be 0 every time", rounds.EQUAL_HINT, case=device)


def check_zero_target_drafts(check: CheckRun, verify) -> None:
    """Drafts the target gives probability 0 are never accepted, whatever the residual."""
    p = np.array([0.0, 0.0, 0.0, 0.5, 0.3, 0.2])
    q = np.array([0.3, 0.3, 0.3, 0.05, 0.04, 0.01])
    drafts = torch.tensor([[i % 3, (i + 1) % 3, (7 * i) % 3] for i in range(SMALL_DRAWS)])
    check.seed_everything("p = 0")
    pairs = verified(check, verify, torch.from_numpy(p), torch.from_numpy(q), drafts,
                     "(every draft has p = 0)")
    wrong = sorted({i for i, _ in pairs if i != 3})
    check.require("a draft with p = 0 is never accepted", not wrong,
                  f"index was {wrong}; every draft has target probability 0 here, so every call "
                  "must return index m = 3 (and a token from the residual)", rounds.ZERO_TARGET_HINT)


def check_one_hot_target(check: CheckRun, verify) -> None:
    """Greedy decoding: with a one-hot p the draft equal to its argmax is accepted, no other."""
    token = 4
    p = np.eye(VOCAB)[token]
    q = dirichlet(np.random.default_rng(CONSTRUCTION_SEED + 2), 1, VOCAB, 1.0)[0]
    drafts = torch.tensor([[0, 4, 2], [3, 1, 4], [4, 4, 0], [1, 2, 3], [5, 5, 5]] * 20)
    check.seed_everything("one-hot p")
    pairs = verified(check, verify, torch.from_numpy(p), torch.from_numpy(q), drafts,
                     f"(one-hot target on token {token})")
    check.judge("one_hot_target", OneHotAnswers(token, drafts.tolist(), pairs))
