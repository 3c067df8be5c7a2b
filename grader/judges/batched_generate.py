"""What the batched loop's rows are compared with: each prompt's greedy decoding by the
target alone (the reference autoregressive loop), the reference batched loop's forward
counts, and the exact laws of each row's output and acceptance rate."""
import dataclasses

from grader.checks.harness import CheckRun
from grader.judged.loops import GREEDY_LENGTH, NO_EOS, Greedy, LoopRun, Samples, row_label
from grader.judges.loop_properties import law_tests, sequence_law
from grader.observers.trace import recorded
from grader.oracle import acceptance, laws, stats
from solutions.autoregressive import autoregressive_generate
from solutions.batched import batched_speculative_generate


def alone(target, prompts: list[list[int]], **generate) -> list[list[int]]:
    """The target's greedy decoding of each prompt alone (``generate``: the keywords of
    `autoregressive_generate`)."""
    return [autoregressive_generate(prompt, target, **generate) for prompt in prompts]


def greedy(check: CheckRun, run: LoopRun) -> None:
    """Each row of ``run.ids`` is its prompt's greedy decoding by the target alone."""
    outputs, prompts = run.ids, run.prompt
    expected = alone(run.target, prompts, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    wrong = [b for b, (o, e) in enumerate(zip(outputs, expected)) if o != e]
    check.require("greedy output of every row", not wrong,
                  f"rows {wrong} of prompts {prompts} gave {[outputs[b] for b in wrong]}; greedy "
                  f"decoding of the target alone gives {[expected[b] for b in wrong]}", run.hint, case=run.label)


def stops(check: CheckRun, run: Greedy) -> None:
    """Every row is its prompt's greedy decoding, ending where ``run.generate``'s end tokens
    and ``max_gen_len`` end it."""
    expected = alone(run.model, run.prompt, **run.generate)
    check.require(run.prop, run.ids == expected, f"gave {run.ids}; expected {expected}", run.hint, case=run.case)


def forward_counts(check: CheckRun, run: LoopRun) -> None:
    """``run.forwards[0]``, the learner's forwards per model, against the reference loop's."""
    counts = run.forwards[0]
    expected, _ = recorded(batched_speculative_generate, run.prompt, run.target, None, **run.shape)
    want = {role: len(f) for role, f in expected.items()}
    check.require("one target forward per round, one drafter forward per draft", counts == want,
                  f"made {counts} forwards; expected {want} (9 tokens, gamma=3, every draft "
                  "accepted)", run.hint)


def row_laws(check: CheckRun, run: LoopRun) -> None:
    """Each row's law of its first tokens and, without an end token, of its acceptance rate
    (``run.ids``: each draw's rows; ``run.forwards``: each draw's rates)."""
    outputs, rates, target, drafter, case = run.ids, run.forwards, run.target, run.drafter, run.case
    for row, prompt in enumerate(case.prompt):
        label = row_label(case, row)
        row_case = dataclasses.replace(case, id=label, label=label, prompt=prompt)
        law_tests(check, Samples([draw[row] for draw in outputs], target, row_case, run.hint))
        if case.eos == NO_EOS:  # the rate's exact law counts every round (grader/oracle/acceptance.py)
            rate_law = acceptance.rate_law(target, drafter, prompt, case.shape["gamma"], case.max_gen_len,
                                           case.processor, first_target=True)
            check.test("acceptance rate",
                       stats.goodness_of_fit([acceptance.as_fraction(r[row]) for r in rates],
                                             rate_law, "acceptance rate"),
                       "each row's rate is its accepted drafts / the drafts it could use: a row "
                       "with room for r more tokens uses min(k, r - 1) of the round's k drafts", case=label)


def independence(check: CheckRun, run: LoopRun) -> None:
    """Two rows with one prompt: the pair of their second tokens has the product law."""
    outputs, target, case = run.ids, run.target, run.case
    law = laws.marginal(sequence_law(target, case.prompt[0], case.max_gen_len, case.processor, case.eos), 1)
    pairs = [(draw[0][1], draw[1][1]) for draw in outputs]
    check.test("two rows with one prompt are independent",
               stats.goodness_of_fit(pairs, laws.product(law, law), "second-token pair"),
               "rows share forwards, never random numbers: draw each row's uniforms and "
               "samples with their own noise", case=case.label)
