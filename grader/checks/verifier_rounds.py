"""The verifier suite's runner half, shared by the checks of the draft verifiers: drafts,
batches of rounds, their results, and the properties every sampling verifier has.

A round's outcome is the tuple of tokens it emits: the accepted drafts, then the one
token drawn at the stop (a correction, or the bonus when all ``k`` were accepted). The
checks draw the drafts from ``q`` themselves; the decider's judge
(grader/judges/verifier_rounds.py) compares the outcomes' laws with their closed forms,
never individual draws, so a verifier may use its random numbers in any order.

An exercise's check declares a ``VerifierAdapter`` (how its function is called on a law
case and how its answers are read) and its cases; ``generator_property`` and
``law_properties`` are then written once here for every verifier.
"""
import abc
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from grader.checks.harness import CheckRun

# G-tests with every cell expected ≥ 20 times: simulated, their χ² tail holds where Holm's
# thresholds lie (p ≈ 2e-5); Pearson's χ² with cells ≥ 5 overstates significance there
# 2–3 times (a cell expected 5 times has a heavy upper tail), which would spend the
# family error rate several times over.
LAW_TEST = {"statistic": "log-likelihood", "min_expected": 20.0}
EQUAL_HINT = ("when p == q every draft must be accepted: min(1, p/q) = 1, so no random number may "
              "reject it, and nothing may turn into NaN",
              "the acceptance test must hold at equality too: a test like u < p/q − ε, a smoothed or "
              "clamped q, or a residual of zeros sampled anyway rejects drafts it must accept",
              "accept when u · q < p (or u < p/q) with u in [0, 1)")
NONE_REJECTED_HINT = ("a round that rejects no draft must return rejected_idx = k (none rejected), "
                      "but these rounds returned 0: the position of the first rejection is not "
                      "defined in a round with none",
                      "argmax over a row of all-False rejections gives 0",
                      "give argmax a last column that is always True (index k), "
                      "torch.cat([rejected, rejected.new_ones(1)]).int().argmax(), or test whether "
                      "any draft was rejected")


def equal_hint(rejected: list[int]) -> tuple[str, ...]:
    """The hint for rounds of p == q that returned these wrong ``rejected_idx`` values."""
    return NONE_REJECTED_HINT if rejected == [0] else EQUAL_HINT


ZERO_TARGET_MESSAGE = ("in these rounds draft 0 has p == q (always accepted) and draft 1 has p = 0 "
                       "(never accepted), so every round must stop at position 1")
ZERO_TARGET_HINT = ("a draft the target gives probability 0 can never be accepted: min(1, p/q) = 0",
                    "the acceptance test must be strict: with u drawn from [0, 1), u <= p/q accepts a "
                    "p = 0 draft whenever u is 0",
                    "accept iff u · q < p")
GENERATOR_HINT = ("the same generator seed must give the same answers, whatever the global random "
                  "state: every random draw must come from the generator passed in",
                  "pass generator=generator to every random call (torch.rand, torch.multinomial, "
                  "Tensor.exponential_); a call without it draws from the global generator")
ZERO_DIM_HINT = ("return 0-dim tensors, not Python numbers or tensors of one element: the loop keeps "
                 "them on the device",
                 "index a 1-D tensor with a 0-dim index (t[i]) or take .argmax() of a 1-D tensor: both "
                 "give 0-dim tensors; avoid .item() (a host sync)")


def draw_drafts(check: CheckRun, q: np.ndarray, draws: int, *key) -> torch.Tensor:
    """``[draws, k]`` LongTensor: draft ``i`` of each round drawn from ``q_i`` (``q`` ``[k, V]``)."""
    generator = check.generator("drafts", *key)
    return torch.multinomial(torch.from_numpy(q), draws, replacement=True, generator=generator).T


def call_rounds(check: CheckRun, verify, drafts, arrange, *inputs, what: str, **keywords) -> list:
    """``[verify(*arrange(d, *inputs), **keywords) for d in drafts]`` through one ``check.call``.

    One call for the whole batch keeps the grader's own cost per round small, while a
    raised exception or a changed input (``drafts`` or ``inputs``) is still diagnosed,
    under ``verify``'s name.
    """
    @functools.wraps(verify)
    def batch(drafts, *inputs):
        return [verify(*arrange(d, *inputs), **keywords) for d in drafts]

    return check.call(batch, drafts, *inputs, what=what)


def parsed(check: CheckRun, result, k: int, vocab: int, device, what: str) -> tuple[int, int]:
    """The ints ``(rejected_idx, token)`` of one result of ``speculative_sampling`` or
    ``greedy_match``, or a failure that says what is wrong with it."""
    j, t = map(int, integer_pair(check, result, ("rejected_idx", "resampled_token"), (), device, what))
    if not 0 <= j <= k:
        check.fail("rejected_idx range", f"rejected_idx = {j} {what}; it must lie in [0, k = {k}] "
                   "(k means every draft was accepted)")
    if not 0 <= t < vocab:
        check.fail("token range", f"resampled_token = {t} {what}; a token id lies in [0, V = {vocab})")
    return j, t


def integer_pair(check: CheckRun, result, names: tuple[str, str], shape: tuple[int, ...], device,
                 what: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A verifier's result, a pair of integer tensors of ``shape`` on ``device`` named
    ``names``, or a failure that says what is wrong with it."""
    kind = "0-dim integer tensors" if shape == () else f"integer tensors of shape {list(shape)}"
    expected = f"a pair ({names[0]}, {names[1]}) of {kind}"
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        check.fail("return value", f"returned {type(result).__name__} {str(result)[:60]} {what}; "
                   f"expected {expected}")
    for name, value in zip(names, result):
        if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape:
            found = (f"a tensor of shape {list(value.shape)}" if isinstance(value, torch.Tensor)
                     else f"of type {type(value).__name__}")
            check.fail("return value", f"{name} is {found} {what}; expected {expected}",
                       ZERO_DIM_HINT if shape == () else "")
        if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
            check.fail("return dtype", f"{name} has dtype {value.dtype} {what}; expected an "
                       "integer dtype (torch.long)")
        if value.device != device:
            check.fail("return device", f"{name} is on {value.device} for inputs on {device} "
                       f"{what}; keep everything on the inputs' device")
    return result[0], result[1]


def index_token_pairs(check: CheckRun, results: list, candidates: list[list[int]], vocab: int, device,
                      what: str, noun: str) -> list[tuple[int, int]]:
    """The ``(index, token)`` ints of a verifier of ``m`` candidates per call (lesson 9's
    drafts, lesson 11's children), one result per row of ``candidates``, or a failure that
    says what is wrong: index in [0, m], token in [0, vocab), ``candidates[index]`` when
    index < m. ``noun``: what a candidate is called ("draft", "child")."""
    plural = {"draft": "drafts", "child": "children"}[noun]
    pairs = []
    for result, row in zip(results, candidates):
        index, token = map(int, integer_pair(check, result, ("index", "token"), (), device, what))
        m = len(row)
        if not 0 <= index <= m:
            check.fail("index range", f"index = {index} {what}; it must lie in [0, m = {m}] "
                       f"(m means every {noun} was rejected)")
        if not 0 <= token < vocab:
            check.fail("token range", f"token = {token} {what}; a token id lies in [0, V = {vocab})")
        if index < m and token != row[index]:
            check.fail(f"token is the accepted {noun}",
                       f"returned index {index} and token {token} for {plural} {row} {what}; when "
                       f"index < m the token must be {plural}[index], the {noun} that was accepted")
        pairs.append((index, token))
    return pairs


def check_generator(check: CheckRun, answers_with, calls: int) -> None:
    """Same generator seed, same answers, whatever the state of the global generator:
    ``answers_with(generator)`` makes ``calls`` calls with it and returns their answers."""
    answers = []
    for global_seed in ("first", "second"):
        check.seed_everything("generator", global_seed)
        answers.append(answers_with(torch.Generator().manual_seed(1234)))
    differ = sum(a != b for a, b in zip(*answers))
    check.require("the generator argument is honoured", differ == 0,
                  f"two runs of {calls} calls with generators seeded alike gave different "
                  f"answers in {differ} calls", GENERATOR_HINT)


@dataclass(frozen=True)
class LawRounds:
    """A law judge's one argument: a law case and the outcomes of the rounds drawn from it
    (the emitted-token tuples of a verifier of k drafts, the ``(index, token)`` pairs of a
    verifier of m drafts of one position)."""
    case: Any
    outcomes: list[tuple]


class VerifierAdapter(abc.ABC):
    """How the suite's properties call one exercise's verifier on a law case and read its
    answers. A case has ``name``, ``q`` (the rows drafts are drawn from) and ``draws``.
    ``judge`` names the judge of a case's laws, which gets ``judged``'s value (passed as a
    keyword, so that tests/test_contributing.py sees that it resolves)."""
    SMALL_DRAWS = 20  # calls for the generator property

    def __init__(self, judge: str = "verifier_rounds.test_laws"):
        self.judge = judge

    def draw(self, check: CheckRun, case, draws: int, *key):
        """The drafts of ``draws`` calls, one per first-dim row, drawn from ``case.q``."""
        return draw_drafts(check, case.q, draws, *key)

    @abc.abstractmethod
    def answers(self, check: CheckRun, verify, case, drafts, what: str, **keywords) -> list:
        """What each call on a row of ``drafts`` returned, checked for type and range."""

    def law_key(self, case) -> tuple:
        """The key the law rounds' drafts are drawn under."""
        return (case.name,)

    def law_what(self, case) -> str:
        return f"({case.name})"

    def judged(self, case, drafts, answers: list) -> Any:
        """The law judge's argument: by default each answer is already a round's outcome."""
        return LawRounds(case, answers)


def generator_property(check: CheckRun, adapter: VerifierAdapter, verify, case) -> None:
    """Same generator seed, same answers, whatever the global random state, on ``case``."""
    drafts = adapter.draw(check, case, adapter.SMALL_DRAWS, "generator")
    check_generator(check, lambda generator: adapter.answers(
        check, verify, case, drafts, "(with generator=torch.Generator().manual_seed(1234))",
        generator=generator), adapter.SMALL_DRAWS)


def law_properties(check: CheckRun, adapter: VerifierAdapter, verify, case) -> None:
    """The exact laws of ``case``'s rounds, tested by the adapter's judge."""
    drafts = adapter.draw(check, case, case.draws * check.draws, *adapter.law_key(case))
    check.seed_everything("laws", case.name)
    answers = adapter.answers(check, verify, case, drafts, adapter.law_what(case))
    check.judge(adapter.judge, adapter.judged(case, drafts, answers))
