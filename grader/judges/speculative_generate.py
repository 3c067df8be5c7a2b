"""What the speculative loop's outputs are compared with (lesson 3's check, reused by
kv_cache and static_cache as ``speculative_generate.<function>``): the reference loop's
forwards, the exact law of the acceptance rate and the target's law of the output."""
from grader.checks.harness import CheckRun
from grader.judged.loops import COUNTS_GAMMA_HINT, RATE_HINT, LoopRun, Samples
from grader.judges.loop_properties import law_tests
from grader.observers.trace import traced
from grader.oracle import acceptance, stats
from solutions.speculative import speculative_generate

FORWARDS_HINT = ("speculation pays because the target scores every draft of a round in one forward, "
                 "where plain decoding needs one forward per token.",
                 "each draft takes one drafter forward over the sequence so far; then ONE target "
                 "forward over the sequence and every draft scores them all (its last k + 1 positions)")


def forwards(check: CheckRun, run: LoopRun) -> None:
    """``run.forwards``, the learner's (model, tokens fed) per forward, against the reference
    loop's with the same keywords (``run.shape``)."""
    fed = run.forwards
    expected = [(c.role, c.fed) for c in traced(speculative_generate, run.prompt, run.drafter, run.target,
                                                **run.shape)[2]]
    check.require("one target forward per round", fed == expected,
                  f"(model, tokens fed) per forward were {fed}; expected {expected}", FORWARDS_HINT)


def acceptance_rate(check: CheckRun, drawn: Samples) -> None:
    """The law of the returned acceptance rates (``drawn.numbers``), and of the outputs of the
    same draws."""
    case = drawn.case
    rates = [acceptance.as_fraction(rate) for rate in drawn.numbers]
    law = rate_law(drawn)
    check.test("acceptance rate", stats.goodness_of_fit(rates, law, "acceptance rate"),
               rate_hint(rates, law, drawn), case=case.label)
    law_tests(check, drawn)


def rate_law(drawn: Samples, rule: acceptance.Rule | None = None) -> dict:
    """The exact law of the rate of the draws' case, under the rule of acceptance ``rule``."""
    case = drawn.case
    extra = () if rule is None else (rule,)
    return acceptance.rate_law(drawn.model, drawn.drafter, case.prompt, case.shape["gamma"], case.max_gen_len,
                               case.processor, case.shape["first_target"], *extra)


def rate_hint(rates: list, law: dict, drawn: Samples) -> str:
    """COUNTS_GAMMA_HINT when the rates returned are explained by counting gamma per round
    and not by the rule; the general hint otherwise."""
    if not set(rates) - law.keys():
        return RATE_HINT
    return COUNTS_GAMMA_HINT if set(rates) <= rate_law(drawn, acceptance.Rule(counts_gamma=True)).keys() else RATE_HINT
