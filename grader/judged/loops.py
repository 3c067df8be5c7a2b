"""The loop family's judged values: the one frozen dataclass each loop judge takes (``Greedy``,
``Shipped``, ``Samples`` for the suite's judges, ``LoopRun`` for a loop's own), the loop's law
case, and the constants and hints both halves read (the suite's runner half,
grader/checks/loop_properties.py, names them to its specs).
"""
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from grader.oracle import cases, tiny
from grader.verdict import Hint
from solutions import sampling

NO_EOS = 10**6  # an end token the tiny models can never produce
GREEDY_LENGTH = 10
GREEDY = sampling.GreedyProcessor()
ALONE = "gave {ids}; greedy decoding of the target alone gives {expected}"
RATE_HINT = ("draft i is accepted with probability min(1, p_i(d_i) / q_i(d_i)), p and q being "
             "the processed target and drafter distributions at the same position; a round "
             "stops at its first rejection; the rate is all accepted drafts / all drafted "
             "tokens of the call")
COUNTS_GAMMA_HINT = ("the rate divides by gamma drafts in every round, but a round near "
                     "max_gen_len drafts only k = min(gamma, tokens left − 1): count the k drafts "
                     "each round made (every rate returned is one that counting gamma gives, "
                     "and some are impossible otherwise)")


@dataclass(frozen=True)
class Greedy:
    """The greedy judge's argument: ``prop`` on ``case`` holds when ``ids`` is ``model``'s
    greedy decoding of ``prompt`` with ``generate`` (keywords of `autoregressive_generate`:
    ``max_gen_len``, ``eos_tokens_id``, ``use_cache``); ``said``: the message, with ``{ids}``
    and ``{expected}`` in it."""
    prop: str
    ids: Any
    model: Any
    prompt: list[Any]  # a batched loop's: a prompt per row
    generate: Mapping[str, Any]
    hint: Hint = ""
    said: str = ALONE
    case: str = ""


@dataclass(frozen=True)
class Shipped:
    """The shipped pair's judge's argument: ``outputs``, the ids of the one prompt of
    ``prompts`` (or a list of ids per prompt when there are several), must be ``target``'s
    greedy decoding of ``length`` tokens."""
    prop: str
    case: str
    outputs: Any
    target: Any
    prompts: list[list[int]]
    length: int
    hint: Hint = ""


@dataclass(frozen=True, eq=False)
class LawCase(cases.LawCase):
    """A loop's sampled setting whose law of the first tokens is known exactly (``id``,
    ``label`` and ``draws`` as every law case's: grader/oracle/cases.py). ``shape``: the loop's
    keywords for its rounds (``gamma``, ``branching``...); ``drafter``: a name of ``models()``'s
    drafters, "" for a loop without one; ``eos``: the end tokens, which end a sample early."""
    processor: sampling.LogitsProcessor
    prompt: list[Any]  # a batched loop's: a prompt per row
    max_gen_len: int
    eos: int | list[int] = 1
    shape: Mapping[str, Any] = field(default_factory=dict)
    drafter: str = ""

    @property
    def keywords(self) -> dict[str, Any]:
        """The loop's keywords for one draw: ``shape``, the processor, ``max_gen_len`` and the end tokens."""
        return {**self.shape, "logits_processor": self.processor, "max_gen_len": self.max_gen_len,
                "eos_tokens_id": self.eos}


def row_label(case: LawCase, row: int) -> str:
    """The case of one row's law tests in a batched loop's ``case``: "row 1, prompt [2, 3, 4, 5]
    of <the batch's label>"."""
    return f"row {row}, prompt {case.prompt[row]} of {case.label}"


@dataclass(frozen=True)
class Samples:
    """A law judge's argument: the first tokens of ``case``'s draws, one tuple per run, that
    must follow ``model``'s exact law; ``prop``: the joint law's property (by default "law of
    the first L tokens"); ``per_token``: each token's law is tested too; ``label``: the case
    shown, by default ``case.label``; ``options``: of `stats.goodness_of_fit`; ``numbers``: the
    number each run returned, where a judge tests their law too, with ``drafter``."""
    samples: list[tuple[int, ...]]
    model: Any
    case: LawCase
    hint: Hint
    prop: str = ""
    per_token: bool = True
    label: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    numbers: list[float] = field(default_factory=list)
    drafter: Any = None


@dataclass(frozen=True)
class LoopRun:
    """A loop's own judge's argument: one run as the judge reads it. ``loop``: the function
    graded, where a judge serves several loops; ``label``: the case shown; ``prompt``,
    ``shape`` (the round's keywords) and ``max_gen_len`` it ran with, on ``target`` and
    ``drafter`` (a model, a feature head, a corpus); what it returned (``ids``, ``number``, the
    property ``returns`` names it in) or ``raised``; what observers logged (``forwards``,
    ``events``, ``feeds``); the hints of a wrong output (``hint``) and a wrong number
    (``number_hint``); ``case``: the exercise's own setting, where the judge needs more;
    ``prop``: the property, where the check names it."""
    label: str
    prompt: list[Any]  # a batched loop's: a prompt per row
    target: Any
    drafter: Any = None
    shape: Mapping[str, Any] = field(default_factory=dict)
    max_gen_len: int = GREEDY_LENGTH
    ids: Any = None
    number: float = 0.0
    returns: str = ""
    raised: str = ""
    forwards: list[Any] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    feeds: list[Any] = field(default_factory=list)
    hint: Hint = ""
    number_hint: Hint = ""
    loop: str = ""
    case: Any = None
    prop: str = ""


@dataclass(frozen=True)
class StorageCase:
    """ngram's storage case: ``NGramStorage(n, V)`` (V the tiny models' vocabulary), initialised with each of ``prompts`` in turn, then
    ``updates`` (context, tokens); ``next_token(query)`` must give what the judge holds."""

    prop: str
    n: int
    prompts: tuple
    query: tuple
    hint: Hint
    updates: tuple = ()


@dataclass(frozen=True)
class StorageAnswer:
    """ngram's storage judge's argument: what ``next_token`` gave (``got``) in ``case``, called as ``what`` says."""
    case: StorageCase
    got: int | None
    what: str


@dataclass
class NGramRun:
    """One run of ngram's loop on the tiny target (its case): prompt, storage and settings."""

    prompt: list[int]
    n: int
    gamma: int
    max_gen_len: int = 12
    first_target: bool = True
    stop_if_unknown: bool = False
    use_cache: bool = False
    filler_top_k: int = 3
    lookup: bool = False  # a storage that learns the prompt only (prompt lookup)
    eos: int | list[int] = NO_EOS

    def kwargs(self) -> dict:
        return dict(gamma=self.gamma, max_gen_len=self.max_gen_len, first_target=self.first_target,
                    stop_if_unknown=self.stop_if_unknown, use_cache=self.use_cache,
                    filler_top_k=self.filler_top_k, eos_tokens_id=self.eos)

    @property
    def label(self) -> str:
        """The run as its properties name it (their ``case``): prompt, storage, gamma,
        max_gen_len and each setting off its default."""
        storage = f"NGramStorage({self.n}, {tiny.TINY_VOCAB})"
        storage = f"PromptLookup({storage})" if self.lookup else storage
        defaults = dict(first_target=True, stop_if_unknown=False, use_cache=False, filler_top_k=3,
                        eos_tokens_id=NO_EOS)
        shown = ", ".join(f"{k}={v}" for k, v in self.kwargs().items() if defaults.get(k, v) != v
                          or k in ("gamma", "max_gen_len"))
        return f"prompt {self.prompt}, {storage}, {shown}"
