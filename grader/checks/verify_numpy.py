"""Check `speculative_decoding_verify` (the numpy warm-up): the list it returns, inputs
given as lists, p == q, drafts with p = 0, then the exact laws of its rounds over the
fixed (p, q) cases (the decider's alone: grader/judges/verifier_rounds.py). It draws from
numpy's global generator, which the check seeds."""
import numpy as np

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import build_cases, equal_distributions, zero_target_rounds

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
SMALL_DRAWS = 20  # rounds for each deterministic property
EQUAL_DRAWS = 250  # p == q: many rounds, so that a rule rejecting now and then shows
LIST_HINT = ("a round returns the ids of the tokens it emits, as a plain list of Python ints",
             "build a Python list and append int(token) for every emitted token; floats, tensors and "
             "None are not token ids")
STOP_HINT = ("a round emits the accepted drafts, in order, then one token: the correction at "
             "the first rejection (then return at once) or the bonus from the last target row")


def run(check: CheckRun) -> None:
    verify = check.function("speculative_decoding_verify")
    check_list_inputs(check, verify)
    check_equal_distributions(check, verify)
    check_zero_target_drafts(check, verify)
    for case in CASES:
        rounds.law_properties(check, ADAPTER, verify, case)


def arrange(draft, target, proposal, vocab):
    return draft, proposal, target, vocab


class Adapter(rounds.VerifierAdapter):
    """``speculative_decoding_verify(drafts, q, p, V)`` on a case's numpy rows, the drafts
    as lists: each call's emitted tokens, as a tuple."""

    def draw(self, check: CheckRun, case, draws: int, *key) -> list[list[int]]:
        return super().draw(check, case, draws, *key).tolist()

    def answers(self, check: CheckRun, verify, case, drafts, what: str, **keywords) -> list:
        return verified(check, verify, case.p, case.q, drafts, what)


ADAPTER = Adapter()


def verified(check: CheckRun, verify, target, proposal, drafts: list[list[int]], what: str):
    """The emitted tokens of one round per draft list, as tuples (checked for shape)."""
    vocab = len(target[0])
    results = rounds.call_rounds(check, verify, drafts, arrange, target, proposal, vocab, what=what)
    return [emitted(check, result, draft, vocab, what) for draft, result in zip(drafts, results)]


def emitted(check: CheckRun, result, draft: list[int], vocab: int, what: str) -> tuple:
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


def check_list_inputs(check: CheckRun, verify) -> None:
    """Python lists work as well as arrays (deep-ml passes lists)."""
    case = CASES[1]
    drafts = rounds.draw_drafts(check, case.q, SMALL_DRAWS, "lists").tolist()
    check.seed_everything("lists")
    verified(check, verify, case.p.tolist(), case.q.tolist(), drafts,
             "(draft_probs and target_probs given as lists of lists)")


def check_equal_distributions(check: CheckRun, verify) -> None:
    target, proposal = equal_distributions()
    drafts = rounds.draw_drafts(check, proposal, EQUAL_DRAWS, "p == q").tolist()
    check.seed_everything("p == q")
    outcomes = verified(check, verify, target, proposal, drafts, "(p == q)")
    k = len(proposal)
    short = sorted({len(o) - 1 for o in outcomes if len(o) != k + 1})
    check.require("p == q accepts every draft", not short,
                  f"some rounds accepted only {short} of {k} drafts where draft_probs == "
                  f"target_probs[:k]; all {k} must be accepted, then the bonus token",
                  rounds.EQUAL_HINT)


def check_zero_target_drafts(check: CheckRun, verify) -> None:
    target, proposal, drafts = zero_target_rounds(SMALL_DRAWS)
    check.seed_everything("p = 0")
    outcomes = verified(check, verify, target, proposal, drafts.tolist(), "(draft 1 has p = 0)")
    wrong = sorted({len(o) - 1 for o in outcomes if len(o) != 2})
    check.require("a draft with p = 0 is never accepted", not wrong,
                  f"some rounds accepted {wrong} drafts; {rounds.ZERO_TARGET_MESSAGE}",
                  rounds.ZERO_TARGET_HINT)
