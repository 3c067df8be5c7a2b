"""The batched_verify check's expected values: each row's exact laws (those of one round,
grader/judges/verifier_rounds.py), and the product law of a row and its twin."""
from grader.judges.verifier_rounds import test_laws
from grader.oracle import laws, stats, verifier_laws
from grader.oracle.stats import LAW_TEST
from grader.judged.verifiers import Recorder, RowRounds

INDEPENDENCE_HINT = ("the rows are independent sequences: each needs random numbers of its own, or "
                     "their verdicts are tied together",
                     "draw the uniforms as a [B, k] tensor and sample each row's token with its own "
                     "noise; a uniform shared by the rows (torch.rand(k) broadcast over B) ties them")


def laws_of_rows(check: Recorder, judged: RowRounds) -> None:
    """Each row's law tests (its rounds' emitted-token tuples), then the first row against
    its twin, the last row: their accepted counts and first tokens."""
    for row in judged.rows:
        test_laws(check, row)
    first, twin = judged.rows[0].outcomes, judged.twin
    case = judged.rows[0].case
    counts = laws.product(verifier_laws.accepted_count_law(case.p, case.q),
                          verifier_laws.accepted_count_law(case.p, case.q))
    check.test(f"{case.label} and its twin row: accepted counts independent",
               stats.goodness_of_fit([(len(a) - 1, len(b) - 1) for a, b in zip(first, twin)],
                                     counts, "accepted-count pair", **LAW_TEST),
               INDEPENDENCE_HINT)
    tokens = laws.product(verifier_laws.first_token_law(case.p), verifier_laws.first_token_law(case.p))
    check.test(f"{case.label} and its twin row: first tokens independent",
               stats.goodness_of_fit([(a[0], b[0]) for a, b in zip(first, twin)], tokens,
                                     "first-token pair", **LAW_TEST),
               INDEPENDENCE_HINT)
