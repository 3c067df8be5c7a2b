"""The verifier suite's judge half: the exact laws of a round's outcomes (the tuple of tokens
it emits), in the closed forms of grader/oracle/verifier_laws.py, tested against the rounds
a check drew; shared by speculative_sampling, batched_verify and verify_numpy.

A judge of the family imports nothing of the checks: it records through a ``Recorder`` and
takes one frozen dataclass, both of grader/judged/verifiers.py; its hints live here or
in its own module.
"""
import functools
import numpy as np

from grader.oracle import stats, verifier_laws
from grader.oracle.stats import LAW_TEST
from grader.oracle.verifier_cases import RoundCase
from grader.judged.verifiers import LawRounds, Recorder

JOINT_HINT = ("a round's tokens must follow the target's law whatever the drafts: each draft is kept "
              "with the chance that p allows it, the first rejection ends the round with a token that "
              "makes up for what the drafter under-proposed, and a round that keeps every draft earns "
              "one more token from the target.",
              "accept draft i with probability min(1, p_i(d)/q_i(d)); at the first rejection "
              "draw one token from norm(max(0, p_i − q_i)) and stop; if all k drafts are accepted, "
              "draw the bonus token from p_k.")
TOO_MANY_ACCEPTED = ("more drafts are accepted than min(1, p/q) allows: the usual causes are the "
                     "ratio q/p instead of p/q, counting acceptances after the first rejection "
                     "instead of stopping there, a smoothed q, or one uniform for every draft "
                     "(each draft needs its own: with one u, a draft is accepted whenever an "
                     "earlier one with a smaller ratio was).")
TOO_FEW_ACCEPTED = ("fewer drafts are accepted than min(1, p/q) gives: the usual causes are "
                    "accepting only when p ≥ q (forgetting the random acceptance with probability "
                    "p/q), the last rejection used instead of the first, or p and q taken from "
                    "different rows.")
FIRST_TOKEN_HINT = ("the first token must follow p_0 exactly, whatever the drafter proposes: an "
                    "accepted draft contributes min(p, q), a correction max(0, p − q). A mismatch "
                    "usually means the correction is not drawn from the residual, or acceptance "
                    "uses the wrong ratio.")
CORRECTION_HINT = ("after the first rejection, at position i, draw the token from the residual "
                   "norm(max(0, p_i − q_i)) of that same row, with a fresh random number. Drawing it "
                   "from p_i, from q_i − p_i, from another row, or with the uniform that decided the "
                   "rejection (it is conditioned to be ≥ p/q) gives this pattern.")
BONUS_HINT = ("when all k drafts are accepted, the bonus token is the target's prediction after the "
              "last draft, drawn from the target's own distribution, not from a residual.",
              "that is the last target row p_k (target_dists[k]), not p_(k−1).")


@functools.cache
def emission_law(case: RoundCase) -> dict[tuple[int, ...], float]:
    """The joint law of a round's emitted tokens, once per case (a case is its own key)."""
    return verifier_laws.emission_law(case.p, case.q)


def test_laws(check: Recorder, rounds: LawRounds[RoundCase]) -> None:
    """Record the law tests of one case; its outcomes are the emitted-token tuples."""
    case, outcomes = rounds.case, rounds.outcomes
    p, q, k = case.p, case.q, case.k
    check.test(f"{case.label}: joint law of the emitted tokens",
               stats.goodness_of_fit(outcomes, emission_law(case), "emitted sequence", show_tokens,
                                     **LAW_TEST),
               JOINT_HINT)

    counts = [len(o) - 1 for o in outcomes]
    count_law = verifier_laws.accepted_count_law(p, q)
    expected_mean = sum(j * prob for j, prob in count_law.items())
    result = stats.goodness_of_fit(counts, count_law, "accepted count", **LAW_TEST)
    result.message += (f"; mean {np.mean(counts):.3f} accepted, exact {expected_mean:.3f} "
                       f"(acceptance rates Σ min(p_i, q_i) = "
                       f"{', '.join(f'{a:.3f}' for a in verifier_laws.acceptance_rates(p, q))})")
    check.test(f"{case.label}: law of the accepted count", result,
               TOO_MANY_ACCEPTED if np.mean(counts) > expected_mean else TOO_FEW_ACCEPTED)

    check.test(f"{case.label}: law of the first token",
               stats.goodness_of_fit([o[0] for o in outcomes], verifier_laws.first_token_law(p),
                                     "first token", **LAW_TEST), FIRST_TOKEN_HINT, case="must be p_0")

    corrections = [(len(o) - 1, o[-1]) for o in outcomes if len(o) <= k]
    check.test(f"{case.label}: law of the correction token given the stop position",
               stats.conditional_goodness_of_fit(corrections, verifier_laws.correction_laws(p, q),
                                                 "correction token", "stop position", **LAW_TEST),
               CORRECTION_HINT)

    # the bonus law is a property of every case that can accept all k drafts, whatever the draws:
    # a run where none did (a rare event, judged by the count law above) holds it with no draws
    all_accepted = count_law.get(k, 0.0)
    if all_accepted > 0:
        bonuses = [o[-1] for o in outcomes if len(o) == k + 1]
        result = (stats.goodness_of_fit(bonuses, verifier_laws.bonus_law(p), "bonus token", **LAW_TEST) if bonuses
                  else stats.TestResult(1.0, 0.0, 0, f"no round accepted all {k} drafts (chance {all_accepted:.2g} "
                                                     f"a round): no bonus token to test"))
        check.test(f"{case.label}: law of the bonus token", result, BONUS_HINT, case=f"all {k} accepted")


def show_tokens(tokens: tuple[int, ...]) -> str:
    return " ".join(map(str, tokens))
