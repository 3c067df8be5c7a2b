"""What every loop's check compares with: the target's own greedy decoding (the reference
autoregressive loop) and the exact law of the first tokens; shared by the loop checks
(grader/checks/loop_properties.py), which call these as ``loop_properties.<function>``."""
from grader.checks.harness import CheckRun
from grader.oracle import laws, stats
from grader.verdict import Hint
from solutions.autoregressive import as_list, autoregressive_generate

ALONE = "gave {ids}; greedy decoding of the target alone gives {expected}"


def greedy(check: CheckRun, prop: str, ids, model, prompt: list[int], hint: Hint = "", said: str = ALONE,
           *, case: str = "", **generate) -> None:
    """Require ``ids`` to be ``model``'s greedy decoding of ``prompt`` (``generate``: the
    keywords of `autoregressive_generate`, e.g. ``max_gen_len``, ``eos_tokens_id``);
    ``said`` is the message, with ``{ids}`` and ``{expected}`` in it."""
    expected = autoregressive_generate(prompt, model, **generate)
    check.require(prop, ids == expected, said.format(ids=ids, expected=expected), hint, case=case)


def shipped_greedy(check: CheckRun, prop: str, outputs, target, prompts: list[list[int]], length: int,
                   hint: Hint = "", *, case: str = "") -> None:
    """Greedy output on the shipped pair: ``outputs`` are the ids of the one prompt, or a
    list of ids per prompt when there are several."""
    expected = [autoregressive_generate(p, target, max_gen_len=length, use_cache=True) for p in prompts]
    expected = expected[0] if len(prompts) == 1 else expected
    check.require(prop, outputs == expected,
                  f"gave {outputs}; greedy decoding of the shipped target alone gives {expected}", hint,
                  case=case)


def sequence_law(model, prompt: list[int], length: int, processor, eos) -> dict:
    """The exact law of the first ``length`` tokens sampled after ``prompt``, ending at ``eos``."""
    return laws.sequence_law(model, prompt, length, processor, as_list(eos))


def first_tokens(check: CheckRun, prop: str, samples, model, prompt: list[int], length: int, processor, eos,
                 hint: Hint, *, case: str = "") -> None:
    """``prop`` on ``case``: the joint law of the first ``length`` tokens of ``samples``."""
    law = sequence_law(model, prompt, length, processor, eos)
    check.test(prop, stats.goodness_of_fit(samples, law, "sequence"), hint, case=case)


def law_tests(check: CheckRun, samples, model, prompt: list[int], length: int, processor, eos, label: str,
              hint: Hint, **test) -> None:
    """The joint law of the first ``length`` tokens of ``samples`` and each token's law;
    ``test``: options of `stats.goodness_of_fit`."""
    law = sequence_law(model, prompt, length, processor, eos)
    check.test(f"law of the first {length} tokens", stats.goodness_of_fit(samples, law, "sequence", **test),
               hint, case=label)
    for position in range(length):
        observed = [s[position] if position < len(s) else None for s in samples]
        check.test(f"law of token {position + 1}",
                   stats.goodness_of_fit(observed, laws.marginal(law, position),
                                         f"token {position + 1}", **test), hint, case=label)

