"""The loop suite's judge half: what every loop's check compares with, the target's own
greedy decoding (the reference autoregressive loop) and the exact law of the first tokens.
Each judge takes one argument of the suite's runner half (grader/checks/loop_properties.py),
which names them by its ``Judge`` references."""
from typing import Any

from grader.checks.harness import CheckRun
from grader.judged.loops import Greedy, Samples, Shipped
from grader.oracle import laws, stats
from solutions.autoregressive import as_list, autoregressive_generate


def greedy(check: CheckRun, run: Greedy) -> None:
    """Require ``run.ids`` to be the model's greedy decoding of its prompt."""
    expected = autoregressive_generate(run.prompt, run.model, **run.generate)
    check.require(run.prop, run.ids == expected, run.said.format(ids=run.ids, expected=expected), run.hint,
                  case=run.case)


def shipped_greedy(check: CheckRun, run: Shipped) -> None:
    """Greedy output on the shipped pair, for one prompt or each of several."""
    each = [autoregressive_generate(p, run.target, max_gen_len=run.length, use_cache=True) for p in run.prompts]
    expected = each[0] if len(run.prompts) == 1 else each
    check.require(run.prop, run.outputs == expected,
                  f"gave {run.outputs}; greedy decoding of the shipped target alone gives {expected}", run.hint,
                  case=run.case)


def sequence_law(model: Any, prompt: list[int], length: int, processor: Any, eos: int | list[int]) -> dict[Any, float]:
    """The exact law of the first ``length`` tokens sampled after ``prompt``, ending at ``eos``."""
    return laws.sequence_law(model, prompt, length, processor, as_list(eos))


def law_tests(check: CheckRun, drawn: Samples) -> None:
    """The joint law of the first ``max_gen_len`` tokens of the samples and, with
    ``per_token``, each token's law."""
    case = drawn.case
    length, label = case.max_gen_len, drawn.label or case.label
    law = sequence_law(drawn.model, case.prompt, length, case.processor, case.eos)
    check.test(drawn.prop or f"law of the first {length} tokens",
               stats.goodness_of_fit(drawn.samples, law, "sequence", **drawn.options), drawn.hint, case=label)
    if not drawn.per_token:
        return
    for position in range(length):
        observed = [s[position] if position < len(s) else None for s in drawn.samples]
        check.test(f"law of token {position + 1}",
                   stats.goodness_of_fit(observed, laws.marginal(law, position), f"token {position + 1}",
                                         **drawn.options),
                   drawn.hint, case=label)
