"""What the speculative loop's outputs are compared with (lesson 3's check, reused by
kv_cache and static_cache as ``speculative_generate.<function>``): the reference loop's
forwards, the exact law of the acceptance rate and the target's law of the output."""
from grader.checks.harness import CheckRun
from grader.checks.speculative_generate import COUNTS_GAMMA_HINT, RATE_HINT
from grader.judges.loop_properties import law_tests
from grader.observers.trace import traced
from grader.oracle import acceptance, stats
from solutions.speculative import speculative_generate

SEQUENCE_HINT = ("the output must follow the target's law: accept draft i with probability "
                 "min(1, p_i/q_i), resample a rejection from max_fn(p_i - q_i), take the bonus from "
                 "p_k when all k drafts are accepted, and let the target choose the first token")


FORWARDS_HINT = ("speculation pays because the target scores every draft of a round in one forward, "
                 "where plain decoding needs one forward per token.",
                 "each draft takes one drafter forward over the sequence so far; then ONE target "
                 "forward over the sequence and every draft scores them all (its last k + 1 positions)")


def forwards(check: CheckRun, fed: list, prompt: list[int], drafter, target, kwargs: dict) -> None:
    """``fed``, the learner's (model, tokens fed) per forward, against the reference loop's."""
    expected = [(c.role, c.fed) for c in traced(speculative_generate, prompt, drafter, target, **kwargs)[2]]
    check.require("one target forward per round", fed == expected,
                  f"(model, tokens fed) per forward were {fed}; expected {expected}", FORWARDS_HINT)


def acceptance_rate(check: CheckRun, rates: list[float], outputs: list[tuple], target, drafter, case) -> None:
    """The law of the returned acceptance rates, and of the outputs of the same draws."""
    rates = [acceptance.as_fraction(rate) for rate in rates]
    law = acceptance.rate_law(target, drafter, case.prompt, case.gamma, case.length, case.processor,
                              case.first_target)
    check.test("acceptance rate", stats.goodness_of_fit(rates, law, "acceptance rate"),
               rate_hint(rates, law, target, drafter, case), case=repr(case))
    sequence_tests(check, outputs, target, case)


def rate_hint(rates: list, law: dict, target, drafter, case) -> str:
    """COUNTS_GAMMA_HINT when the rates returned are explained by counting gamma per round
    and not by the rule; the general hint otherwise."""
    if not set(rates) - law.keys():
        return RATE_HINT
    gamma_law = acceptance.rate_law(target, drafter, case.prompt, case.gamma, case.length,
                                    case.processor, case.first_target, acceptance.Rule(counts_gamma=True))
    return COUNTS_GAMMA_HINT if set(rates) <= gamma_law.keys() else RATE_HINT


def sequence_tests(check: CheckRun, samples: list[tuple], target, case) -> None:
    """The joint law of the outputs and the law of the token at each position."""
    law_tests(check, samples, target, case.prompt, case.length, case.processor, case.eos, repr(case),
              SEQUENCE_HINT)
