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
from typing import Any

import numpy as np
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.observers.host_syncs import HostSyncCounter, TorchCalls
from grader.oracle.cases import LawCase
from grader.oracle.verifier_cases import RoundCase, build_cases, equal_case, zero_target_case
from grader.judged.verifiers import LawRounds, RowRounds

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
EQUAL = equal_case(250)  # p == q in 3 rows: many rounds, so that a rule rejecting now and then shows
ZERO_TARGET, ZERO_TARGET_DRAFTS = zero_target_case(20)  # in 2 rows, the second's rounds reversed
LOOP_HINT = ("a batched verifier works on whole tensors: its number of torch calls must not grow "
             "with the batch B or the number of drafts k",
             "work on whole [B, k] and [B, k+1, V] tensors: gather the drafts' probabilities, "
             "compare u * q < p, find each row's first rejection with argmax over dim 1 and "
             "pick each row's candidate row with gather; no `for` over rows or drafts")
SYNC_HINT = ("the verifier must never wait for a tensor's value on the host: on a GPU each read "
             "stalls until the device has finished",
             "keep the result as tensors: index with tensors and use torch.where/argmax instead of "
             "Python conditions (.item(), .tolist(), int(), if tensor: ... all read on the host)")


@dataclass(frozen=True, eq=False)
class RowsCase(LawCase):
    """A batch whose rows are cases of one (k, V); in a law batch the last row is a twin of
    the first (to test that rows are independent)."""
    cases: tuple[RoundCase, ...]  # one a row

    @property
    def q(self) -> list[np.ndarray]:
        return [c.q for c in self.cases]


def batches(cases: list[RoundCase]) -> list[RowsCase]:
    """The cases grouped by (k, V), each group followed by a twin of its first case."""
    groups: defaultdict[tuple[int, int], list[RoundCase]] = defaultdict(list)
    for case in cases:
        groups[(case.k, case.vocab)].append(case)
    return [RowsCase("+".join(c.id for c in group) + "+twin", " + ".join(c.label for c in group) + " + twin",
                     LAW_DRAWS, tuple(group + group[:1])) for group in groups.values()]


def rows_of(case: RoundCase, rows: int) -> RowsCase:
    """``case`` in each of ``rows`` rows: a batch with the case's id, label and draws."""
    return RowsCase(case.id, case.label, case.draws, (case,) * rows)


class Adapter(rounds.VerifierAdapter[RowsCase]):
    """``batched_speculative_sampling(p, q, drafts)`` on the stacked rows of a ``RowsCase``:
    each call's ``(rejected_idx, token)`` per row."""

    def draw(self, check: CheckRun, case: RowsCase, draws: int, *key: object) -> torch.Tensor:
        """``[draws, B, k]``: each row's drafts drawn from its own q."""
        return torch.stack([rounds.draw_drafts(check, q, draws, row, *key) for row, q in enumerate(case.q)], dim=1)

    def answers(self, check: CheckRun, verify: rounds.Verify, case: RowsCase, drafts: torch.Tensor, what: str,
                device: str = "cpu", **keywords: Any) -> list[list[tuple[int, int]]]:
        """One call per round; ``drafts`` ``[rounds, B, k]``. Returns, per round, each row's
        ``(rejected_idx, token)`` ints, after checking the result's types and ranges."""
        p, q = stacked([c.p for c in case.cases], device), stacked(case.q, device)
        results = rounds.call_rounds(check, verify, drafts.to(device), lambda d, p, q: (p, q, d), p, q,
                                     what=what, **keywords)
        batch, k = drafts.shape[1:]
        return [parsed(check, result, batch, k, p.shape[-1], p.device, what) for result in results]

    def stops(self, answer: list[tuple[int, int]]) -> list[int]:
        return [j for j, _ in answer]

    def law_key(self, case: RowsCase) -> tuple[object, ...]:
        return ("laws", case.label)

    def law_what(self, case: RowsCase) -> str:
        return f"(B = {len(case.cases)} rows: {case.label})"

    def judged(self, case: RowsCase, drafts: torch.Tensor, answers: list[Any]) -> RowRounds:
        outcomes = [[tuple(d[:j]) + (t,) for d, (j, t) in zip(drafts[:, row].tolist(), column)]
                    for row, column in enumerate(zip(*answers))]
        return RowRounds([LawRounds(c, o) for c, o in zip(case.cases[:-1], outcomes)], outcomes[-1])


def stacked(rows: list[np.ndarray], device: str = "cpu") -> torch.Tensor:
    return torch.from_numpy(np.stack(rows)).to(device=device, dtype=torch.float64)


def parsed(check: CheckRun, result: Any, batch: int, k: int, vocab: int, device: torch.device,
           what: str) -> list[tuple[int, int]]:
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


def vectorised(check: CheckRun, adapter: rounds.VerifierAdapter[RowsCase], verify: rounds.Verify) -> None:
    """A loop over rows or drafts makes more torch calls as B or k grows; a vectorised
    verifier makes the same number. And no read of a tensor on the host."""
    counts: dict[tuple[int, int], int] = {}
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


BATCHES = batches(CASES)
SUITE = rounds.Suite("batched_speculative_sampling", Adapter(judge="laws_of_rows"), (
    rounds.EveryCall("p == q accepts every draft", rows_of(EQUAL, 3), EQUAL.k,
                     "(p == q in every row, B = 3, k = {stop}, on {device})",
                     "rejected_idx was {wrong} in some rows of {calls} rounds where p[:, :k] == q; it must be "
                     "k = {stop} everywhere", rounds.EQUAL_HINT, zero_hint=rounds.NONE_REJECTED_HINT),
    rounds.EveryCall("a draft with p = 0 is never accepted", rows_of(ZERO_TARGET, 2), 1, "(draft 1 has p = 0)",
                     "rejected_idx was {wrong}; " + rounds.ZERO_TARGET_MESSAGE, rounds.ZERO_TARGET_HINT,
                     per_device=False,
                     drafts=torch.from_numpy(np.stack([ZERO_TARGET_DRAFTS, ZERO_TARGET_DRAFTS[::-1]], axis=1))),
    rounds.Generator(BATCHES[-1]),
    vectorised,
    rounds.Laws(tuple(BATCHES), unless_failed=True)))


def run(check: CheckRun) -> None:
    SUITE.run(check)
