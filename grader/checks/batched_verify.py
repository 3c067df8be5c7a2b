"""Check `batched_speculative_sampling` (lesson 8): lesson 2's verifier, row by row.

The fixed (p, q) cases of the verifier checks are stacked into batches, one row per case
(cases of one k and V share a batch), plus a twin of the batch's first row. Properties:
the returned pair (``[B]`` integer tensors on the inputs' device), p == q accepts every
draft, a draft with p = 0 is never accepted, the generator is honoured, no host sync and
no Python loop over rows or drafts (the count of torch calls does not grow with B or k);
then, from the same rounds, each row's exact laws and the independence of a row and its
twin (the joint law of their accepted counts and of their first tokens is the product of
their laws): the decider's alone (grader/judges/batched_verify.py).
"""
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.observers.host_syncs import HostSyncCounter, TorchCalls
from grader.oracle.verifier_cases import build_cases, equal_distributions, zero_target_rounds

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
SMALL_DRAWS = 20
EQUAL_DRAWS = 250
LOOP_HINT = ("a batched verifier works on whole tensors: its number of torch calls must not grow "
             "with the batch B or the number of drafts k",
             "work on whole [B, k] and [B, k+1, V] tensors: gather the drafts' probabilities, "
             "compare u * q < p, find each row's first rejection with argmax over dim 1 and "
             "pick each row's candidate row with gather; no `for` over rows or drafts")
SYNC_HINT = ("the verifier must never wait for a tensor's value on the host: on a GPU each read "
             "stalls until the device has finished",
             "keep the result as tensors: index with tensors and use torch.where/argmax instead of "
             "Python conditions (.item(), .tolist(), int(), if tensor: ... all read on the host)")


def run(check: CheckRun) -> None:
    verify = check.function("batched_speculative_sampling")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        check_equal_distributions(check, verify, device)
    check_zero_target_drafts(check, verify)
    rounds.generator_property(check, ADAPTER, verify, batches(CASES)[-1])
    check_vectorised(check, verify)
    check.stop_if_failed("law tests")
    for batch in batches(CASES):
        rounds.law_properties(check, ADAPTER, verify, batch)


@dataclass(frozen=True)
class Rows:
    """The batched verifier's law case: cases of one (k, V), one row each, the last row a
    twin of the first (to test that rows are independent)."""
    cases: tuple

    @property
    def name(self) -> str:
        return " + ".join(c.name for c in self.cases[:-1]) + " + twin"

    @property
    def q(self) -> list[np.ndarray]:
        return [c.q for c in self.cases]

    @property
    def draws(self) -> int:
        return LAW_DRAWS


@dataclass(frozen=True)
class RowRounds:
    """The judge's one argument: each row's law case and outcomes, and the twin row's outcomes."""
    rows: list[rounds.LawRounds]
    twin: list[tuple]


def batches(cases) -> list[Rows]:
    """The cases grouped by (k, V), each group followed by a twin of its first case."""
    groups = defaultdict(list)
    for case in cases:
        groups[(case.k, case.vocab)].append(case)
    return [Rows(tuple(group + group[:1])) for group in groups.values()]


class Adapter(rounds.VerifierAdapter):
    """``batched_speculative_sampling(p, q, drafts)`` on the stacked rows of a ``Rows`` case:
    each call's ``(rejected_idx, token)`` per row."""

    def draw(self, check: CheckRun, case: Rows, draws: int, *key) -> torch.Tensor:
        return draw_drafts(check, case.q, draws, *key)

    def answers(self, check: CheckRun, verify, case: Rows, drafts, what: str, **keywords) -> list:
        return verified(check, verify, stacked([c.p for c in case.cases]), stacked(case.q), drafts, what,
                        **keywords)

    def law_key(self, case: Rows) -> tuple:
        return ("laws", case.name)

    def law_what(self, case: Rows) -> str:
        return f"(B = {len(case.cases)} rows: {case.name})"

    def judged(self, case: Rows, drafts, answers: list) -> RowRounds:
        outcomes = [[tuple(d[:j]) + (t,) for d, (j, t) in zip(drafts[:, row].tolist(), column)]
                    for row, column in enumerate(zip(*answers))]
        return RowRounds([rounds.LawRounds(c, o) for c, o in zip(case.cases[:-1], outcomes)], outcomes[-1])


ADAPTER = Adapter(judge="laws_of_rows")


def stacked(rows: list[np.ndarray], device="cpu", dtype=torch.float64) -> torch.Tensor:
    return torch.from_numpy(np.stack(rows)).to(device=device, dtype=dtype)


def verified(check: CheckRun, verify, p: torch.Tensor, q: torch.Tensor, drafts: torch.Tensor,
             what: str, **keywords) -> list[list[tuple[int, int]]]:
    """One call per round; ``drafts`` ``[rounds, B, k]``. Returns, per round, each row's
    ``(rejected_idx, token)`` ints, after checking the result's types and ranges."""
    results = rounds.call_rounds(check, verify, drafts, lambda d, p, q: (p, q, d), p, q,
                                 what=what, **keywords)
    return [parsed(check, result, *drafts.shape[1:], p.shape[-1], p.device, what)
            for result in results]


def parsed(check: CheckRun, result, batch: int, k: int, vocab: int, device, what: str):
    """Each row's ``(rejected_idx, token)`` ints, or a failure that says what is wrong."""
    rejected_idx, tokens = rounds.integer_pair(check, result, ("rejected_idx", "tokens"), (batch,),
                                               device, what)
    pairs = list(zip(rejected_idx.tolist(), tokens.tolist()))
    for row, (j, t) in enumerate(pairs):
        if not 0 <= j <= k:
            check.fail("rejected_idx range", f"rejected_idx[{row}] = {j} {what}; it must lie in "
                       f"[0, k = {k}] (k means every draft of the row was accepted)")
        if not 0 <= t < vocab:
            check.fail("token range", f"tokens[{row}] = {t} {what}; a token id lies in [0, V = {vocab})")
    return pairs


def draw_drafts(check: CheckRun, qs: list[np.ndarray], draws: int, *key) -> torch.Tensor:
    """``[draws, B, k]``: each row's drafts drawn from its own q."""
    return torch.stack([rounds.draw_drafts(check, q, draws, row, *key)
                        for row, q in enumerate(qs)], dim=1)


def check_equal_distributions(check: CheckRun, verify, device: str) -> None:
    p, q = equal_distributions()
    rows = 3
    drafts = draw_drafts(check, [q] * rows, EQUAL_DRAWS, "p == q").to(device)
    check.seed_everything("p == q", device)
    results = verified(check, verify, stacked([p] * rows, device), stacked([q] * rows, device),
                       drafts, f"(p == q in every row, B = {rows}, k = {len(q)}, on {device})")
    rejected = sorted({j for pairs in results for j, _ in pairs if j != len(q)})
    check.require("p == q accepts every draft", not rejected,
                  f"rejected_idx was {rejected} in some rows of {EQUAL_DRAWS} rounds where "
                  f"p[:, :k] == q; it must be k = {len(q)} everywhere", rounds.equal_hint(rejected), case=device)


def check_zero_target_drafts(check: CheckRun, verify) -> None:
    p, q, drafts = zero_target_rounds(SMALL_DRAWS)
    check.seed_everything("p = 0")
    batch = torch.from_numpy(np.stack([drafts, drafts[::-1]], axis=1).copy())
    results = verified(check, verify, stacked([p, p]), stacked([q, q]), batch, "(draft 1 has p = 0)")
    wrong = sorted({j for pairs in results for j, _ in pairs if j != 1})
    check.require("a draft with p = 0 is never accepted", not wrong,
                  f"rejected_idx was {wrong}; {rounds.ZERO_TARGET_MESSAGE}", rounds.ZERO_TARGET_HINT)


def check_vectorised(check: CheckRun, verify) -> None:
    """A loop over rows or drafts makes more torch calls as B or k grows; a vectorised
    verifier makes the same number. And no read of a tensor on the host."""
    counts = {}
    for batch, k in ((2, 2), (16, 8)):
        rng = np.random.default_rng(batch * 100 + k)
        p = torch.from_numpy(rng.dirichlet(np.ones(6), size=(batch, k + 1)))
        q = torch.from_numpy(rng.dirichlet(np.ones(6), size=(batch, k)))
        drafts = torch.from_numpy(rng.integers(6, size=(batch, k)))
        with TorchCalls(check.observation) as calls, HostSyncCounter(check.observation) as syncs:
            check.call(verify, p, q, drafts, what=f"(B = {batch}, k = {k}, counting torch calls)")
        counts[(batch, k)] = calls.count
        with check.observing():
            check.require("no host sync", syncs.count == 0,
                          f"read tensors on the host {syncs.count} times (.item(), .tolist(), "
                          "int(), if tensor: ...)", SYNC_HINT, case=f"B = {batch}, k = {k}")
    small, large = counts[(2, 2)], counts[(16, 8)]
    with check.observing():
        check.require("no Python loop over rows or drafts", large < small + 6,
                      f"made {small} torch calls for B = 2, k = 2 and {large} for B = 16, k = 8",
                      LOOP_HINT)
