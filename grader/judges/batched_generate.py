"""What the batched loop's rows are compared with: each prompt's greedy decoding by the
target alone (the reference autoregressive loop), the reference batched loop's forward
counts, and the exact laws of each row's output and acceptance rate."""
from grader.checks.batched_generate import GREEDY_LENGTH, LAW_HINT, NO_EOS, PROMPTS, recorded, row_label
from grader.checks.harness import CheckRun
from grader.judges.loop_properties import law_tests, sequence_law
from grader.oracle import acceptance, laws, stats
from grader.verdict import Hint
from solutions.autoregressive import autoregressive_generate
from solutions.batched import batched_speculative_generate


def alone(target, **generate) -> list[list[int]]:
    """The target's greedy decoding of each of PROMPTS alone (``generate``: the keywords of
    `autoregressive_generate`)."""
    return [autoregressive_generate(prompt, target, **generate) for prompt in PROMPTS]


def greedy(check: CheckRun, label: str, outputs: list[list[int]], target, hint: Hint) -> None:
    expected = alone(target, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    wrong = [b for b, (o, e) in enumerate(zip(outputs, expected)) if o != e]
    check.require("greedy output of every row", not wrong,
                  f"rows {wrong} of prompts {PROMPTS} gave {[outputs[b] for b in wrong]}; greedy "
                  f"decoding of the target alone gives {[expected[b] for b in wrong]}", hint, case=label)


def stops(check: CheckRun, prop: str, outputs: list[list[int]], target, hint: Hint, *, case: str = "",
          **generate) -> None:
    """``prop`` on ``case``: every row is its prompt's greedy decoding, ending where
    ``generate``'s end tokens and ``max_gen_len`` end it."""
    expected = alone(target, **generate)
    check.require(prop, outputs == expected, f"gave {outputs}; expected {expected}", hint, case=case)


def forward_counts(check: CheckRun, counts: dict, target, kwargs: dict, hint: Hint) -> None:
    """``counts``, the learner's forwards per model, against the reference loop's."""
    expected, _ = recorded(batched_speculative_generate, PROMPTS, target, None, **kwargs)
    want = {role: len(f) for role, f in expected.items()}
    check.require("one target forward per round, one drafter forward per draft", counts == want,
                  f"made {counts} forwards; expected {want} (9 tokens, gamma=3, every draft "
                  "accepted)", hint)


def row_laws(check: CheckRun, outputs: list, rates: list, target, drafter, case) -> None:
    """Each row's law of its first tokens and, without an end token, of its acceptance rate."""
    for row, prompt in enumerate(case.prompts):
        label = row_label(row, prompt, case)
        law_tests(check, [run[row] for run in outputs], target, prompt, case.length, case.processor, case.eos,
                  label, LAW_HINT)
        if case.eos == NO_EOS:  # the rate's exact law counts every round (grader/oracle/acceptance.py)
            rate_law = acceptance.rate_law(target, drafter, prompt, case.gamma, case.length, case.processor,
                                           first_target=True)
            check.test("acceptance rate",
                       stats.goodness_of_fit([acceptance.as_fraction(r[row]) for r in rates],
                                             rate_law, "acceptance rate"),
                       "each row's rate is its accepted drafts / the drafts it could use: a row "
                       "with room for r more tokens uses min(k, r - 1) of the round's k drafts", case=label)


def independence(check: CheckRun, outputs: list, target, case) -> None:
    """Two rows with one prompt: the pair of their second tokens has the product law."""
    law = laws.marginal(sequence_law(target, case.prompts[0], case.length, case.processor, case.eos), 1)
    pairs = [(run[0][1], run[1][1]) for run in outputs]
    check.test("two rows with one prompt are independent",
               stats.goodness_of_fit(pairs, laws.product(law, law), "second-token pair"),
               "rows share forwards, never random numbers: draw each row's uniforms and "
               "samples with their own noise", case=repr(case))
