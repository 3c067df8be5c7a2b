"""Check `speculative_sampling`, declared as a verifier suite spec (grader/checks/verifier_rounds.py):
the returned pair, p == q, drafts with p = 0, the ``generator`` argument, then the exact laws
of its rounds over the fixed (p, q) cases (the decider's alone: grader/judges/verifier_rounds.py)."""
from typing import Any

import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import RoundCase, build_cases, equal_case, zero_target_case
from grader.judged.verifiers import LawRounds

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
FLOAT32_CASES = {"mixed-k5"}  # ids of the cases given as float32, as models often give them
EQUAL = equal_case(250)  # p == q: many rounds, so that a rule rejecting now and then shows
ZERO_TARGET, ZERO_TARGET_DRAFTS = zero_target_case(20)


class Adapter(rounds.VerifierAdapter[RoundCase]):
    """``speculative_sampling(p, q, drafts)`` on a case's rows (float32 for FLOAT32_CASES):
    each call's ``(rejected_idx, token)``, read as the round's emitted tokens for the laws."""

    def draw(self, check: CheckRun, case: RoundCase, draws: int, *key: object) -> torch.Tensor:
        return rounds.draw_drafts(check, case.q, draws, *key)

    def answers(self, check: CheckRun, verify: rounds.Verify, case: RoundCase, drafts: torch.Tensor, what: str,
                device: str = "cpu", **keywords: Any) -> list[tuple[int, int]]:
        dtype = self.dtype(case)
        target, proposal = (torch.from_numpy(rows).to(device=device, dtype=dtype) for rows in (case.p, case.q))
        results = rounds.call_rounds(check, verify, drafts.to(device), arrange, target, proposal, what=what,
                                     **keywords)
        return [rounds.parsed(check, result, case.k, case.vocab, target.device, what) for result in results]

    def stops(self, answer: tuple[int, int]) -> list[int]:
        return [answer[0]]

    def law_what(self, case: RoundCase) -> str:
        return f"({case.label}, {self.dtype(case)})"

    def judged(self, case: RoundCase, drafts: torch.Tensor, answers: list[Any]) -> LawRounds:
        return LawRounds(case, [tuple(d[:j]) + (t,) for d, (j, t) in zip(drafts.tolist(), answers)])

    @staticmethod
    def dtype(case: RoundCase) -> torch.dtype:
        return torch.float32 if case.id in FLOAT32_CASES else torch.float64


def arrange(draft: torch.Tensor, target: torch.Tensor, proposal: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return target, proposal, draft


SUITE = rounds.Suite("speculative_sampling", Adapter(), (
    rounds.EveryCall("p == q accepts every draft", EQUAL, EQUAL.k, "(p == q, k = {stop}, on {device})",
                     "rejected_idx was {wrong} in some of {calls} rounds where target_dists[:k] == proposal_dists; "
                     "it must be k = {stop} every time", rounds.EQUAL_HINT, zero_hint=rounds.NONE_REJECTED_HINT),
    rounds.EveryCall("a draft with p = 0 is never accepted", ZERO_TARGET, 1, "(draft 1 has p = 0)",
                     "rejected_idx was {wrong}; " + rounds.ZERO_TARGET_MESSAGE, rounds.ZERO_TARGET_HINT,
                     per_device=False, drafts=torch.from_numpy(ZERO_TARGET_DRAFTS)),
    rounds.Generator(CASES[2]),  # flat rows, k = 5: many answers
    rounds.Laws(tuple(CASES))))


def run(check: CheckRun) -> None:
    SUITE.run(check)
