"""Check `verify_deterministic_children`: the returned pair, children the target gives
probability 0, a one-hot target, the ``generator`` argument; then the exact law of
``(index, token)`` over fixed cases: the token follows p, and the index is its place among
the children (grader/oracle/tree_laws.py), the decider's alone
(grader/judges/deterministic_children.py)."""
from dataclasses import dataclass

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import CONSTRUCTION_SEED, dirichlet, with_zeros

VOCAB = 6
LAW_DRAWS = 1500
SMALL_DRAWS = 250  # calls for each deterministic property


@dataclass(frozen=True, eq=False)
class Case:
    name: str
    p: np.ndarray  # [V] the target's distribution
    children: tuple[int, ...]  # m distinct tokens, in the order they are tried
    draws: int = LAW_DRAWS


def build_cases() -> list[Case]:
    rng = np.random.default_rng([CONSTRUCTION_SEED, 11])

    def row(concentration):
        return dirichlet(rng, 1, VOCAB, concentration)[0]

    skewed = row(0.5)
    by_mass = tuple(int(t) for t in np.argsort(-skewed))  # the head's top-k when it agrees with p
    return [
        Case("skewed, m=1", skewed, by_mass[:1]),
        Case("skewed, children in p's order, m=3", skewed, by_mass[:3]),
        Case("skewed, children in reverse order, m=3", skewed, by_mass[:3][::-1]),
        Case("flat, m=4", row(20.0), (5, 0, 3, 1)),
        Case("a child of probability 0, m=3", with_zeros(rng, row(1.0)[None], 2)[0], (0, 1, 4)),
        # every token a child: the residual after the last one is empty, and never drawn
        Case("children cover the vocabulary, m=6", row(1.0), (2, 4, 0, 5, 1, 3)),
    ]


CASES = build_cases()


@dataclass(frozen=True)
class OneHot:
    """The one-hot judge's argument: p is the one-hot of ``token``; the ``(index, token)`` of
    each call with ``children`` on ``device``."""
    token: int
    children: list[int]
    device: str
    pairs: list[tuple[int, int]]


def run(check: CheckRun) -> None:
    verify = check.function("verify_deterministic_children")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        check_one_hot_target(check, verify, device)
    check_zero_children(check, verify)
    check_generator(check, verify)
    check.stop_if_failed("law tests")
    for case in CASES:
        check_laws(check, verify, case)


def arrange(children, target):
    return target, children


def verified(check: CheckRun, verify, p: torch.Tensor, children: torch.Tensor, calls: int, what: str,
             **keywords) -> list[tuple[int, int]]:
    """The ``(index, token)`` ints of ``calls`` calls with the same ``children`` ``[m]``."""
    results = rounds.call_rounds(check, verify, children.expand(calls, -1), arrange, p, what=what, **keywords)
    return rounds.index_token_pairs(check, results, [children.tolist()] * calls, VOCAB, p.device, what, "child")


def check_one_hot_target(check: CheckRun, verify, device: str) -> None:
    """Greedy decoding: with a one-hot p the child equal to its argmax is accepted, and when
    no child is, the token is still the argmax."""
    token = 4
    p = torch.from_numpy(np.eye(VOCAB)[token]).to(device)
    for children in ([0, 4, 2], [3, 1, 5]):
        check.seed_everything("one-hot p", device, *children)
        pairs = verified(check, verify, p, torch.tensor(children, device=device), SMALL_DRAWS,
                         f"(one-hot target on token {token}, children {children}, on {device})")
        check.judge("one_hot_target", OneHot(token, children, device, pairs))


def check_zero_children(check: CheckRun, verify) -> None:
    """Children the target gives probability 0 are never accepted."""
    p = torch.tensor([0.0, 0.0, 0.0, 0.5, 0.3, 0.2], dtype=torch.float64)
    check.seed_everything("p = 0")
    pairs = verified(check, verify, p, torch.tensor([1, 0, 2]), SMALL_DRAWS, "(every child has p = 0)")
    wrong = sorted({i for i, _ in pairs if i != 3})
    check.require("a child with p = 0 is never accepted", not wrong,
                  f"index was {wrong}; every child has target probability 0 here, so every call "
                  "must return index m = 3 (and a token of p's support)",
                  ("a child the target gives probability 0 can never be accepted: it is accepted "
                   "with probability r_i(c_i) = 0",
                   "the test must be strict: with u drawn from [0, 1), u <= r accepts a p = 0 "
                   "child whenever u is 0",
                   "accept iff u · S_i < p(c_i), S_i the mass of p not yet removed"))


def check_generator(check: CheckRun, verify) -> None:
    """Same generator seed, same answers, whatever the state of the global generator."""
    case = CASES[3]  # flat, m = 4: many possible answers per call
    p, children = torch.from_numpy(case.p), torch.tensor(case.children)
    rounds.check_generator(check, lambda generator: verified(
        check, verify, p, children, SMALL_DRAWS, "(with generator=torch.Generator().manual_seed(1234))",
        generator=generator), SMALL_DRAWS)


def check_laws(check: CheckRun, verify, case: Case) -> None:
    check.seed_everything("laws", case.name)
    pairs = verified(check, verify, torch.from_numpy(case.p), torch.tensor(case.children), case.draws * check.draws,
                     f"({case.name})")
    check.judge("laws", rounds.LawRounds(case, pairs))
