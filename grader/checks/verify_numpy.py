"""Check `speculative_decoding_verify` (the numpy warm-up), declared as a verifier suite spec
(grader/checks/verifier_rounds.py): the list it returns, inputs given as lists, p == q,
drafts with p = 0, then the exact laws of its rounds over the fixed (p, q) cases (the
decider's alone: grader/judges/verifier_rounds.py). It draws from numpy's global generator,
which the check seeds."""
from typing import Any

import numpy as np

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import RoundCase, build_cases, equal_case, zero_target_case

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
LIST_CALLS = 20  # calls with inputs given as lists
EQUAL = equal_case(250)  # p == q: many rounds, so that a rule rejecting now and then shows
ZERO_TARGET, ZERO_TARGET_DRAFTS = zero_target_case(20)
LIST_HINT = ("a round returns the ids of the tokens it emits, as a plain list of Python ints",
             "build a Python list and append int(token) for every emitted token; floats, tensors and "
             "None are not token ids")
STOP_HINT = ("a round emits the accepted drafts, in order, then one token: the correction at "
             "the first rejection (then return at once) or the bonus from the last target row")


class Adapter(rounds.VerifierAdapter[RoundCase]):
    """``speculative_decoding_verify(drafts, q, p, V)`` on a case's numpy rows, the drafts
    as lists: each call's emitted tokens, as a tuple."""

    def draw(self, check: CheckRun, case: RoundCase, draws: int, *key: object) -> list[list[int]]:
        return rounds.draw_drafts(check, case.q, draws, *key).tolist()

    def answers(self, check: CheckRun, verify: rounds.Verify, case: RoundCase, drafts: list[list[int]], what: str,
                device: str = "cpu", **keywords: Any) -> list[tuple[int, ...]]:
        return verified(check, verify, case.p, case.q, drafts, what)

    def stops(self, answer: tuple[int, ...]) -> list[int]:
        return [len(answer) - 1]


def arrange(draft: list[int], target: Any, proposal: Any, vocab: int) -> tuple[Any, ...]:
    return draft, proposal, target, vocab


def verified(check: CheckRun, verify: rounds.Verify, target: Any, proposal: Any, drafts: list[list[int]],
             what: str) -> list[tuple[int, ...]]:
    """The emitted tokens of one round per draft list, as tuples (checked for shape);
    ``target`` and ``proposal`` arrays or lists of lists."""
    vocab = len(target[0])
    results = rounds.call_rounds(check, verify, drafts, arrange, target, proposal, vocab, what=what)
    return [emitted(check, result, draft, vocab, what) for draft, result in zip(drafts, results)]


def emitted(check: CheckRun, result: Any, draft: list[int], vocab: int, what: str) -> tuple[int, ...]:
    """The ids one round returned, as a tuple, or a failure that says what is wrong with them."""
    if isinstance(result, np.ndarray) and result.ndim == 1:
        result = result.tolist()
    if not (isinstance(result, (list, tuple)) and result
            and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in result)):
        check.fail("return value", f"returned {type(result).__name__} {str(result)[:60]} {what}; "
                   "expected a non-empty list of ints (the emitted token ids)", LIST_HINT)
    tokens = tuple(int(t) for t in result)
    j = len(tokens) - 1
    if j > len(draft) or list(tokens[:j]) != list(draft[:j]):
        check.fail("one round, one stop", f"returned {list(tokens)} for draft_tokens {list(draft)} "
                   f"{what}; expected the first j drafts then one token (at most k + 1 = "
                   f"{len(draft) + 1} tokens)", STOP_HINT)
    if not 0 <= tokens[-1] < vocab:
        check.fail("token range", f"emitted token {tokens[-1]} {what}; ids lie in [0, {vocab})")
    return tokens


def list_inputs(check: CheckRun, adapter: rounds.VerifierAdapter[RoundCase], verify: rounds.Verify) -> None:
    """Python lists work as well as arrays (deep-ml passes lists)."""
    case = CASES[1]
    drafts = adapter.draw(check, case, LIST_CALLS, "lists")
    check.seed_everything("lists")
    verified(check, verify, case.p.tolist(), case.q.tolist(), drafts,
             "(draft_probs and target_probs given as lists of lists)")


SUITE = rounds.Suite("speculative_decoding_verify", Adapter(), (
    list_inputs,
    rounds.EveryCall("p == q accepts every draft", EQUAL, EQUAL.k, "(p == q)",
                     "some rounds accepted only {wrong} of {stop} drafts where draft_probs == target_probs[:k]; "
                     "all {stop} must be accepted, then the bonus token", rounds.EQUAL_HINT, per_device=False),
    rounds.EveryCall("a draft with p = 0 is never accepted", ZERO_TARGET, 1, "(draft 1 has p = 0)",
                     "some rounds accepted {wrong} drafts; " + rounds.ZERO_TARGET_MESSAGE, rounds.ZERO_TARGET_HINT,
                     per_device=False, drafts=ZERO_TARGET_DRAFTS.tolist()),
    rounds.Laws(tuple(CASES))))


def run(check: CheckRun) -> None:
    SUITE.run(check)
