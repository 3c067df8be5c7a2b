"""The verifier suite's runner half: the properties every draft verifier has, written once,
and how an exercise declares its verifier (its spec).

A round's outcome is the tuple of tokens it emits: the accepted drafts, then the one
token drawn at the stop (a correction, or the bonus when all ``k`` were accepted). The
checks draw the drafts from ``q`` themselves; the decider's judge
(grader/judges/verifier_rounds.py) compares the outcomes' laws with their closed forms,
never individual draws, so a verifier may use its random numbers in any order.

An exercise's check module is its spec: a ``VerifierAdapter`` (how its function is called
on a law case and how its answers are read), its cases (grader/oracle/verifier_cases.py),
its hints, and a ``Suite`` that lists the properties it runs, in order: ``EveryCall`` (p == q
accepts every draft, a draft with p = 0 is never accepted), ``Generator`` and ``Laws`` from
here, and any of its own (a function of ``(check, adapter, verify)``).
"""
import abc
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np
import torch

from grader.checks.harness import CheckRun
from grader.oracle.cases import LawCase
from grader.judged.verifiers import LawRounds
from grader.verdict import Hint

C = TypeVar("C", bound=LawCase)  # the kind of law case an adapter calls its verifier on
Verify = Callable[..., Any]  # the learner's verifier

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


def devices() -> list[str]:
    """The devices a verifier is checked on: the CPU, and CUDA where there is one."""
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def draw_drafts(check: CheckRun, q: np.ndarray, draws: int, *key: object) -> torch.Tensor:
    """``[draws, k]`` LongTensor: draft ``i`` of each round drawn from ``q_i`` (``q`` ``[k, V]``)."""
    generator = check.generator("drafts", *key)
    return torch.multinomial(torch.from_numpy(q), draws, replacement=True, generator=generator).T


def call_rounds(check: CheckRun, verify: Verify, drafts: Any, arrange: Callable[..., tuple[Any, ...]], *inputs: Any,
                what: str, **keywords: Any) -> list[Any]:
    """``[verify(*arrange(d, *inputs), **keywords) for d in drafts]`` through one ``check.call``.

    One call for the whole batch keeps the grader's own cost per round small, while a
    raised exception or a changed input (``drafts`` or ``inputs``) is still diagnosed,
    under ``verify``'s name.
    """
    @functools.wraps(verify)
    def batch(drafts: Any, *inputs: Any) -> list[Any]:
        return [verify(*arrange(d, *inputs), **keywords) for d in drafts]

    return check.call(batch, drafts, *inputs, what=what)


def parsed(check: CheckRun, result: Any, k: int, vocab: int, device: torch.device, what: str) -> tuple[int, int]:
    """The ints ``(rejected_idx, token)`` of one result of ``speculative_sampling`` or
    ``greedy_match``, or a failure that says what is wrong with it."""
    j, t = map(int, integer_pair(check, result, ("rejected_idx", "resampled_token"), (), device, what))
    if not 0 <= j <= k:
        check.fail("rejected_idx range", f"rejected_idx = {j} {what}; it must lie in [0, k = {k}] "
                   "(k means every draft was accepted)")
    if not 0 <= t < vocab:
        check.fail("token range", f"resampled_token = {t} {what}; a token id lies in [0, V = {vocab})")
    return j, t


def integer_pair(check: CheckRun, result: Any, names: tuple[str, str], shape: tuple[int, ...],
                 device: torch.device, what: str) -> tuple[torch.Tensor, torch.Tensor]:
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


def index_token_pairs(check: CheckRun, results: list[Any], candidates: list[list[int]], vocab: int,
                      device: torch.device, what: str, noun: str) -> list[tuple[int, int]]:
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


def check_generator(check: CheckRun, answers_with: Callable[[torch.Generator], list[Any]], calls: int) -> None:
    """Same generator seed, same answers, whatever the state of the global generator:
    ``answers_with(generator)`` makes ``calls`` calls with it and returns their answers."""
    answers: list[list[Any]] = []
    for global_seed in ("first", "second"):
        check.seed_everything("generator", global_seed)
        answers.append(answers_with(torch.Generator().manual_seed(1234)))
    differ = sum(a != b for a, b in zip(*answers))
    check.require("the generator argument is honoured", differ == 0,
                  f"two runs of {calls} calls with generators seeded alike gave different "
                  f"answers in {differ} calls", GENERATOR_HINT)


class VerifierAdapter(abc.ABC, Generic[C]):
    """How the suite's properties call one exercise's verifier on a law case of kind ``C``
    and read its answers. ``judge`` names the judge of a case's laws, which gets ``judged``'s
    value (a keyword of the constructor, so that tests/test_contributing.py sees that it
    resolves)."""
    SMALL_DRAWS = 20  # calls for the generator property

    def __init__(self, judge: str = "verifier_rounds.test_laws"):
        self.judge = judge

    @abc.abstractmethod
    def draw(self, check: CheckRun, case: C, draws: int, *key: object) -> Any:
        """The drafts of ``draws`` calls, one per first-dim row, drawn from the case's ``q``
        with ``check.generator("drafts", *key)`` (``draw_drafts``)."""

    @abc.abstractmethod
    def answers(self, check: CheckRun, verify: Verify, case: C, drafts: Any, what: str, device: str = "cpu",
                **keywords: Any) -> list[Any]:
        """What each call on a row of ``drafts`` returned, checked for type and range; the
        case's rows and the drafts on ``device``."""

    @abc.abstractmethod
    def stops(self, answer: Any) -> list[int]:
        """Where one call's rounds stopped: the accepted drafts before the stop (a call of a
        batched verifier has one round per row), or the accepted draft's index of m."""

    def law_key(self, case: C) -> tuple[object, ...]:
        """The key the law rounds' drafts are drawn under."""
        return (case.label,)

    def law_what(self, case: C) -> str:
        return f"({case.label})"

    def judged(self, case: C, drafts: Any, answers: list[Any]) -> Any:
        """The law judge's argument: by default each answer is already a round's outcome."""
        return LawRounds(case, answers)


Property = Callable[[CheckRun, VerifierAdapter[C], Verify], None]  # one step of a spec's run


@dataclass(frozen=True, eq=False)
class EveryCall(Generic[C]):
    """A deterministic property: every call on ``case`` stops at ``stop`` (as the adapter's
    ``stops`` reads it), on each device when ``per_device``. The drafts are ``drafts`` (in the
    adapter's form), or ``case.draws`` calls drawn from ``case.q``. The case's label keys the
    draws and the seed. ``what`` names the calls and ``message`` says what was wrong, as
    ``str.format`` templates of ``device``, ``stop``, ``calls`` (``case.draws``) and ``wrong``
    (the stops found instead; message only). ``zero_hint`` replaces ``hint``
    when every wrong call stopped at 0 (argmax over a row of all-False rejections)."""
    name: str
    case: C
    stop: int
    what: str
    message: str
    hint: Hint
    per_device: bool = True
    drafts: Any = None
    zero_hint: Hint = ""

    def __call__(self, check: CheckRun, adapter: VerifierAdapter[C], verify: Verify) -> None:
        for device in devices() if self.per_device else [""]:
            drafts = self.drafts if self.drafts is not None else adapter.draw(check, self.case, self.case.draws,
                                                                               self.case.label)
            check.seed_everything(*((self.case.label, device) if device else (self.case.label,)))
            answers = adapter.answers(check, verify, self.case, drafts,
                                      self.what.format(device=device, stop=self.stop, calls=self.case.draws),
                                      device or "cpu")
            wrong = sorted({stop for answer in answers for stop in adapter.stops(answer) if stop != self.stop})
            hint = self.zero_hint if self.zero_hint and wrong == [0] else self.hint
            message = self.message.format(device=device, stop=self.stop, calls=self.case.draws, wrong=wrong)
            check.require(self.name, not wrong, message, hint, case=device)


@dataclass(frozen=True, eq=False)
class Generator(Generic[C]):
    """Same generator seed, same answers, whatever the global random state, on ``case``."""
    case: C

    def __call__(self, check: CheckRun, adapter: VerifierAdapter[C], verify: Verify) -> None:
        drafts = adapter.draw(check, self.case, adapter.SMALL_DRAWS, "generator")
        check_generator(check, lambda generator: adapter.answers(
            check, verify, self.case, drafts, "(with generator=torch.Generator().manual_seed(1234))",
            generator=generator), adapter.SMALL_DRAWS)


@dataclass(frozen=True, eq=False)
class Laws(Generic[C]):
    """The exact laws of each case's rounds, tested by the adapter's judge; with
    ``unless_failed``, not run when a deterministic property failed already (they could
    only measure the same bug again, and slowly)."""
    cases: tuple[C, ...]
    unless_failed: bool = False

    def __call__(self, check: CheckRun, adapter: VerifierAdapter[C], verify: Verify) -> None:
        if self.unless_failed:
            check.stop_if_failed("law tests")
        for case in self.cases:
            drafts = adapter.draw(check, case, case.draws * check.draws, *adapter.law_key(case))
            check.seed_everything("laws", case.label)
            answers = adapter.answers(check, verify, case, drafts, adapter.law_what(case))
            check.judge(adapter.judge, adapter.judged(case, drafts, answers))


@dataclass(frozen=True, eq=False)
class Suite(Generic[C]):
    """An exercise's verifier ``function``, called through ``adapter``, and the properties
    its check runs, in order."""
    function: str
    adapter: VerifierAdapter[C]
    properties: tuple[Property[C], ...]

    def run(self, check: CheckRun) -> None:
        verify = check.function(self.function)
        for prop in self.properties:
            prop(check, self.adapter, verify)
