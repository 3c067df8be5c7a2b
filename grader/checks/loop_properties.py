"""The loop suite's runner half: properties every generation loop shares, for the checks of
lessons 0, 3, 4, 5, 7, 8, 9, 11 and 12.

Under greedy decoding a loop's output must equal the target's own greedy decoding token for
token, so these properties need no statistics: the output for several drafters and prompts,
a drafter identical to the target (every draft accepted), end tokens met inside what a round
drafted, ``max_gen_len`` reached inside a round, and the shipped pair; under sampling, the
target's exact law of the first tokens. The target's greedy decoding and the exact laws the
outputs are compared with are the decider's alone (the suite's judge half,
grader/judges/loop_properties.py). Each loop's check calls these with a `Loop`: how to call
that loop and how its hints name its rounds. A judge is named by a typed `Judge` reference
and takes one frozen dataclass (`Greedy`, `Shipped`, `Samples`, a loop's own `LoopRun`), declared
in grader/judged/loops.py with the law case and the constants both halves read.
"""
import copy
from dataclasses import dataclass
from typing import Any, Callable, Generic, Mapping, TypeVar, cast

import torch

from grader.checks.harness import CheckRun
from grader.judged.loops import GREEDY, GREEDY_LENGTH, NO_EOS, Greedy, LawCase, Samples, Shipped
from grader.judged.loops import COUNTS_GAMMA_HINT as COUNTS_GAMMA_HINT  # named to the specs through their suite,
from grader.judged.loops import LoopRun as LoopRun  # as the values above are
from grader.models import SHIPPED_MISSING, load_pair, shipped_pair_present
from grader.oracle import tiny
from grader.verdict import Hint
from solutions import sampling

MODEL_SEED = 7
SAID = "gave {ids}; expected {expected}"
IDS_TYPE = ("expected a list of Python ints (the generated ids, prompt excluded); "
            "`tensor.tolist()` gives one")

Argument = TypeVar("Argument")


@dataclass(frozen=True)
class Judge(Generic[Argument]):
    """A judge of the hidden half, by its dotted name ``"<judge module>.<function>"`` (the
    decider's preload and tests/test_loop_suite.py resolve it). ``judge(check, argument)``
    records its properties from its one argument in the decider; the runner skips it."""
    name: str

    def __call__(self, check: CheckRun, argument: Argument) -> None:
        check.judge(self.name, argument)


GREEDY_JUDGE: Judge[Greedy] = Judge("loop_properties.greedy")
SHIPPED_JUDGE: Judge[Shipped] = Judge("loop_properties.shipped_greedy")
LAW_JUDGE: Judge[Samples] = Judge("loop_properties.law_tests")


@dataclass(frozen=True)
class Returns:
    """What a loop returns beside its ids, as `generated` checks it: a number, failing
    property ``prop`` unless it lies in [0, ``upper(keywords of the call)``], named ``name``
    in the contract, with ``hint``."""
    prop: str
    name: str
    upper: Callable[[Mapping[str, Any]], float]
    hint: Hint


RATE_TYPE_HINT = ("the acceptance rate is the share of drafted tokens that were accepted, a Python float; "
                  "a call that drafted nothing accepted nothing either.",
                  "accepted / drafted if drafted else 0.0, never 0 / 0")
RATE = Returns("acceptance rate", "acceptance_rate", lambda keywords: 1, RATE_TYPE_HINT)  # a chain loop's number
GREEDILY = {"logits_processor": GREEDY}  # greedy unless told otherwise, with the reference's processor


def generated(check: CheckRun, generate: Callable[..., Any], *args: Any, what: str, returns: Returns | None = None,
              defaults: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
    """``generate(*args, **kwargs)`` through ``check.call``, ``defaults`` filling the keywords
    not given (greedy decoding with the reference's processor, not the learner's default):
    its ids (a list of Python ints) when ``returns`` is None, else its ``(ids, number)``,
    each checked for type (a failure of the check otherwise)."""
    kwargs.update((key, value) for key, value in (defaults or {}).items() if key not in kwargs)
    result = check.call(generate, *args, what=what, **kwargs)
    if returns is not None:
        return ids_and_number(check, result, what, (returns.prop, returns.name), returns.upper(kwargs),
                              returns.hint)
    if not is_ids(result):
        check.fail("return type", f"returned {type(result).__name__} {str(result)[:80]} {what}; {IDS_TYPE}")
    return result


def is_ids(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(i, int) for i in value)


def models() -> tuple[Any, dict[str, Any]]:
    """(target, {name: drafter}): a two-layer tiny Llama; a tiny GPT-2 that rarely agrees
    with it; a noisy copy of the target that agrees with it about two times in three."""
    target, gpt2 = tiny.tiny_pair(MODEL_SEED)
    return target, {"near": noisy_copy(target, scale=0.4, seed=MODEL_SEED), "GPT-2": gpt2}


def noisy_copy(model: Any, scale: float, seed: int) -> Any:
    """``model`` with Gaussian noise of ``scale`` × each parameter's spread added."""
    noisy = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in noisy.parameters():
            noise = torch.randn(param.shape, generator=generator, dtype=param.dtype)
            param.add_(noise * scale * param.std())
    return noisy


def ids_and_number(check: CheckRun, result: Any, what: str, names: tuple[str, str], upper: float,
                   hint: Hint) -> tuple[list[int], float]:
    """A loop's ``(ids, number)``: a failure of "return type" unless ids is a list of
    Python ints, and of ``names[0]`` (the property; ``names[1]`` is the returned field)
    unless the number is a Python float in [0, upper]."""
    ids, number = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
    if not is_ids(ids):
        check.fail("return type", f"returned {type(result).__name__} {str(result)[:80]} {what}; "
                   f"expected a tuple (ids, {names[1]}) whose ids are a list of Python ints "
                   "(the generated ids, prompt excluded); `tensor.tolist()` gives one")
    if not (isinstance(number, (int, float)) and not isinstance(number, bool) and 0 <= number <= upper):
        check.fail(names[0], f"returned {names[1]} = {number!r} {what}; expected a Python float "
                   f"in [0, {upper}]", hint)
    return cast(list[int], ids), cast(float, number)  # check.fail raised otherwise


@dataclass(frozen=True)
class Loop:
    """One loop as the shared properties call it.

    ``call(prompt, drafter, target, what=..., **kwargs)`` runs the learner's loop greedily
    (keywords override) and gives its ``(ids, number)`` after checking their types. ``shape``
    sets a round's size in the runs below (``{"gamma": 4}``); a round of that shape drafts
    at most ``depth`` tokens, the first of round one at output position ``first_drafted``
    (1 when the target's prefill chose position 0). ``all_accepted(length)`` is the number
    the loop returns when every draft of a run of that length is accepted. ``call``'s
    ``drafter`` is whatever drafts: a model, a feature head, a corpus."""
    call: Callable[..., tuple[list[int], float]]
    shape: dict[str, Any]
    depth: int
    first_drafted: int
    all_accepted: Callable[[int], float]
    drafted: str  # what a round drafts, in property names: "a draft", "a tree's path"
    accepts_every: str  # what a drafter = target run accepts every one of: "draft", "level"
    returns: str  # the number's name in messages: "acceptance rate", "mean_accepted"
    greedy_hint: Hint
    same_model_hint: Hint
    end_tokens_hint: Hint
    max_gen_len_hint: Hint
    name: str = ""  # the function graded, where the judges serve several loops
    number_hint: Hint = ""  # a wrong greedy number's (acceptance rate, mean_accepted)
    law_hint: Hint = ""


def check_greedy_properties(check: CheckRun, loop: Loop, target: Any, drafters: Mapping[str, Any],
                            runs: list[tuple[list[int], dict[str, Any]]]) -> None:
    """Every greedy property: the output for each drafter and each ``(prompt, shape)`` of
    ``runs``, a drafter equal to the target, end tokens and ``max_gen_len``."""
    for name, drafter in drafters.items():
        for prompt, shape in runs:
            check_greedy(check, loop, target, drafter, prompt, shape, f"{name} drafter")
    check_same_model(check, loop, target)
    check_end_tokens(check, loop, target)
    check_max_gen_len(check, loop, target, drafters["near"])


def check_greedy(check: CheckRun, loop: Loop, target: Any, drafter: Any, prompt: list[int], shape: dict[str, Any],
                 name: str) -> None:
    label = ", ".join([name, f"prompt {prompt}"] + [f"{key}={value}" for key, value in shape.items()])
    ids, _ = loop.call(prompt, drafter, target, **shape, max_gen_len=GREEDY_LENGTH,
                       eos_tokens_id=NO_EOS, what=f"(greedy, {label})")
    GREEDY_JUDGE(check, Greedy("greedy output", ids, target, prompt,
                               {"max_gen_len": GREEDY_LENGTH, "eos_tokens_id": NO_EOS}, loop.greedy_hint, case=label))


def check_same_model(check: CheckRun, loop: Loop, target: Any) -> None:
    """The drafter is the target: p == q, so every draft is accepted (and nothing is NaN).
    Two full rounds, so that only acceptance is tested here: what a round near
    ``max_gen_len`` counts is the acceptance-rate law's to judge, with its own hint."""
    length = loop.first_drafted + 2 * (loop.depth + 1)
    expected = loop.all_accepted(length)
    for processor in (GREEDY, sampling.MultinomialProcessor(temperature=1.0)):
        check.seed_everything("same model", repr(processor))
        ids, number = loop.call([2, 3], target, target, **loop.shape, logits_processor=processor,
                                max_gen_len=length, eos_tokens_id=NO_EOS,
                                what=f"(drafter = target, {processor!r})")
        check.require(f"drafter = target accepts every {loop.accepts_every}",
                      len(ids) == length and abs(number - expected) < 1e-9,
                      f"gave {len(ids)} tokens with {loop.returns} {number}; expected {length} "
                      f"tokens and {loop.returns} {expected:.4g}",
                      loop.same_model_hint, case=repr(processor))


def check_end_tokens(check: CheckRun, loop: Loop, target: Any) -> None:
    """Two end tokens that the drafter (= target, so every draft is accepted) drafts in the
    first round: the later one given alone, then both (the earlier must win). They are
    chosen from the loop's own greedy text (the judge holds the outputs to the target's)."""
    prompt = [4]
    free, _ = loop.call(prompt, target, target, **loop.shape, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS,
                        what="(drafter = target, no end token: the end tokens below are chosen from it)")
    (_, early), (_, late) = drafted_end_tokens(free, loop)
    for eos, prop in ((late, f"end token (int) inside {loop.drafted}"),
                      ([late, early], "end tokens (list): the earliest wins")):
        ids, _ = loop.call(prompt, target, target, **loop.shape, max_gen_len=GREEDY_LENGTH,
                           eos_tokens_id=eos, what=f"(eos_tokens_id={eos})")
        GREEDY_JUDGE(check, Greedy(prop, ids, target, prompt, {"max_gen_len": GREEDY_LENGTH, "eos_tokens_id": eos},
                                   loop.end_tokens_hint, f"with eos_tokens_id={eos} {SAID}"))


def drafted_end_tokens(free: list[int], loop: Loop) -> tuple[tuple[int, int], tuple[int, int]]:
    """The earliest and the latest ``(position, token)`` among the tokens whose first place
    in ``free`` (greedy text) falls in what round one drafts; ``NO_EOS`` where there is no
    such token (a wrong text, which the greedy properties report)."""
    return end_tokens_in(free, range(loop.first_drafted, loop.first_drafted + loop.depth))


def end_tokens_in(free: list[int], positions: range) -> tuple[tuple[int, int], tuple[int, int]]:
    """The earliest and the latest ``(position, token)`` among the tokens whose first place
    in ``free`` lies in ``positions``; ``(0, NO_EOS)`` for both where there is none."""
    firsts = {t: i for i, t in reversed(list(enumerate(free)))}  # each token's first position
    inside = sorted((i, t) for t, i in firsts.items() if i in positions) or [(0, NO_EOS)]
    return inside[0], inside[-1]


def check_max_gen_len(check: CheckRun, loop: Loop, target: Any, drafter: Any) -> None:
    """Lengths of one and two tokens, of one round's depth, and three past it: lengths that
    end a round before what its shape would draft fits."""
    shape = ", ".join(f"{key}={value}" for key, value in loop.shape.items())
    for length in (1, 2, loop.depth, loop.depth + 3):
        for name, model in (("drafter = target", target), ("near drafter", drafter)):
            ids, _ = loop.call([1, 2], model, target, **loop.shape, max_gen_len=length, eos_tokens_id=NO_EOS,
                               what=f"(max_gen_len={length}, {shape}, {name})")
            GREEDY_JUDGE(check, Greedy(f"max_gen_len={length}", ids, target, [1, 2],
                                       {"max_gen_len": length, "eos_tokens_id": NO_EOS}, loop.max_gen_len_hint,
                                       SAID, case=name))


def check_shipped_greedy(check: CheckRun, prop: str, case: str, texts: list[str], length: int, run: Callable[..., Any],
                         hint: Hint = "") -> None:
    """On the shipped pair, greedy output equals the shipped target's greedy decoding of the
    same ``length`` tokens. ``run(prompt_ids, drafter, target)`` gives the learner's ids; with
    several ``texts`` it is given every prompt at once and gives a list of ids per prompt."""
    if not shipped_pair_present():
        check.skip("the shipped pair", SHIPPED_MISSING)
        return
    target, drafter, tokenizer = load_pair(device="cpu")
    prompts = [tokenizer(text)["input_ids"] for text in texts]
    outputs = run(prompts[0] if len(prompts) == 1 else prompts, drafter, target)
    SHIPPED_JUDGE(check, Shipped(prop, case, outputs, target, prompts, length, hint))



def check_law(check: CheckRun, loop: Loop, target: Any, drafters: Mapping[str, Any], case: LawCase,
              hint: Hint) -> None:
    """The target's exact law of ``case``'s first tokens (jointly and token by token), from
    ``case.draws`` runs of the loop (times the grading config's draws), seeded by its label."""
    check.seed_everything("law", case.label)
    samples = [tuple(loop.call(case.prompt, drafters[case.drafter], target, **case.keywords, what=f"({case.label})")[0])
               for _ in range(case.draws * check.draws)]
    LAW_JUDGE(check, Samples(samples, target, case, hint))
