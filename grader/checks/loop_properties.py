"""Properties every speculative loop shares, for the checks of lessons 3, 4, 5, 7, 8 and 9.

Under greedy decoding a loop's output must equal the target's own greedy decoding token for
token, so these properties need no statistics: the output for several drafters and prompts,
a drafter identical to the target (every draft accepted), end tokens met inside what a round
drafted, ``max_gen_len`` reached inside a round, and the shipped pair. The target's greedy
decoding and the exact laws the outputs are compared with are the decider's alone
(grader/judges/loop_properties.py). Each loop's check calls these with a `Loop`: how to
call that loop and how its hints name its rounds.
"""
import copy
from dataclasses import dataclass
from typing import Callable

import torch

from grader.checks.harness import CheckRun
from grader.models import SHIPPED_MISSING, load_pair, shipped_pair_present
from grader.oracle import tiny
from grader.verdict import Hint
from solutions import sampling

NO_EOS = 10**6  # an end token the tiny models can never produce
MODEL_SEED = 7
GREEDY_LENGTH = 10
GREEDY = sampling.GreedyProcessor()


def models():
    """(target, {name: drafter}): a two-layer tiny Llama; a tiny GPT-2 that rarely agrees
    with it; a noisy copy of the target that agrees with it about two times in three."""
    target, gpt2 = tiny.tiny_pair(MODEL_SEED)
    return target, {"near": noisy_copy(target, scale=0.4, seed=MODEL_SEED), "GPT-2": gpt2}


def noisy_copy(model, scale: float, seed: int):
    """``model`` with Gaussian noise of ``scale`` × each parameter's spread added."""
    noisy = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for param in noisy.parameters():
            noise = torch.randn(param.shape, generator=generator, dtype=param.dtype)
            param.add_(noise * scale * param.std())
    return noisy


def ids_and_number(check: CheckRun, result, what: str, names: tuple[str, str], upper: float,
                   hint: Hint) -> tuple[list[int], float]:
    """A loop's ``(ids, number)``: a failure of "return type" unless ids is a list of
    Python ints, and of ``names[0]`` (the property; ``names[1]`` is the returned field)
    unless the number is a Python float in [0, upper]."""
    ids, number = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
    if not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        check.fail("return type", f"returned {type(result).__name__} {str(result)[:80]} {what}; "
                   f"expected a tuple (ids, {names[1]}) whose ids are a list of Python ints "
                   "(the generated ids, prompt excluded); `tensor.tolist()` gives one")
    if not (isinstance(number, (int, float)) and not isinstance(number, bool) and 0 <= number <= upper):
        check.fail(names[0], f"returned {names[1]} = {number!r} {what}; expected a Python float "
                   f"in [0, {upper}]", hint)
    return ids, number


@dataclass(frozen=True)
class Loop:
    """One loop as the shared properties call it.

    ``call(prompt, drafter, target, what=..., **kwargs)`` runs the learner's loop greedily
    (keywords override) and gives its ``(ids, number)`` after checking their types. ``shape``
    sets a round's size in the runs below (``{"gamma": 4}``); a round of that shape drafts
    at most ``depth`` tokens, the first of round one at output position ``first_drafted``
    (1 when the target's prefill chose position 0). ``all_accepted(length)`` is the number
    the loop returns when every draft of a run of that length is accepted."""
    call: Callable
    shape: dict
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


def check_greedy_properties(check: CheckRun, loop: Loop, target, drafters: dict, runs: list) -> None:
    """Every greedy property: the output for each drafter and each ``(prompt, shape)`` of
    ``runs``, a drafter equal to the target, end tokens and ``max_gen_len``."""
    for name, drafter in drafters.items():
        for prompt, shape in runs:
            check_greedy(check, loop, target, drafter, prompt, shape, f"{name} drafter")
    check_same_model(check, loop, target)
    check_end_tokens(check, loop, target)
    check_max_gen_len(check, loop, target, drafters["near"])


def check_greedy(check, loop: Loop, target, drafter, prompt, shape: dict, name: str) -> None:
    label = ", ".join([name, f"prompt {prompt}"] + [f"{key}={value}" for key, value in shape.items()])
    ids, _ = loop.call(prompt, drafter, target, **shape, max_gen_len=GREEDY_LENGTH,
                       eos_tokens_id=NO_EOS, what=f"(greedy, {label})")
    check.judge("loop_properties.greedy", "greedy output", ids, target, prompt, loop.greedy_hint, case=label,
                max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)


def check_same_model(check, loop: Loop, target) -> None:
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


def check_end_tokens(check, loop: Loop, target) -> None:
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
        check.judge("loop_properties.greedy", prop, ids, target, prompt, loop.end_tokens_hint,
                    f"with eos_tokens_id={eos} gave {{ids}}; expected {{expected}}",
                    max_gen_len=GREEDY_LENGTH, eos_tokens_id=eos)


def drafted_end_tokens(free: list[int], loop: Loop) -> tuple[tuple[int, int], tuple[int, int]]:
    """The earliest and the latest ``(position, token)`` among the tokens whose first place
    in ``free`` (greedy text) falls in what round one drafts; ``NO_EOS`` where there is no
    such token (a wrong text, which the greedy properties report)."""
    firsts = {t: i for i, t in reversed(list(enumerate(free)))}  # each token's first position
    drafted = range(loop.first_drafted, loop.first_drafted + loop.depth)
    inside = sorted((i, t) for t, i in firsts.items() if i in drafted) or [(0, NO_EOS)]
    return inside[0], inside[-1]


def check_max_gen_len(check, loop: Loop, target, drafter) -> None:
    """Lengths of one and two tokens, of one round's depth, and three past it: lengths that
    end a round before what its shape would draft fits."""
    shape = ", ".join(f"{key}={value}" for key, value in loop.shape.items())
    for length in (1, 2, loop.depth, loop.depth + 3):
        for name, model in (("drafter = target", target), ("near drafter", drafter)):
            ids, _ = loop.call([1, 2], model, target, **loop.shape, max_gen_len=length, eos_tokens_id=NO_EOS,
                               what=f"(max_gen_len={length}, {shape}, {name})")
            check.judge("loop_properties.greedy", f"max_gen_len={length}", ids, target, [1, 2],
                        loop.max_gen_len_hint, "gave {ids}; expected {expected}", case=name,
                        max_gen_len=length, eos_tokens_id=NO_EOS)


def check_shipped_greedy(check, prop: str, case: str, texts: list[str], length: int, run,
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
    check.judge("loop_properties.shipped_greedy", prop, outputs, target, prompts, length, hint, case=case)

