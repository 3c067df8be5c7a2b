"""The multi_draft check's expected values: a one-hot target's answers, and the exact law
of ``(index, token)`` (grader/oracle/tree_laws.py) with its two marginals."""
import functools

from grader.oracle import stats, tree_laws
from grader.oracle.stats import LAW_TEST
from grader.oracle.verifier_cases import MultiDraftCase
from grader.judged.verifiers import LawRounds, OneHotAnswers, Recorder

JOINT_HINT = ("with m drafts the answer must still follow p exactly: the drafts are tried in their own "
              "order, each against what is left of p after the earlier rejections, each with a random "
              "number of its own.",
              "try the drafts in order, each with a uniform of its own (one uniform shared by all "
              "drafts makes their acceptances dependent): draft i is accepted with probability "
              "min(1, r_i(x_i) / q(x_i)), where r_0 = p and after each rejection r_(i+1) = "
              "norm(max(0, r_i − q)); return the first accepted index, or m and a token drawn "
              "from r_m when all are rejected.")
TOKEN_HINT = ("the token must follow p exactly, whatever q and m are. Usual causes: every draft "
              "tested against p instead of the updated residual, the final token drawn from p (or "
              "from the first residual) instead of r_m, or the drafts tried in another order than "
              "the one they were drawn in (sorting them by p/q breaks the i.i.d. argument).")
INDEX_HINT = ("index i has probability β_0 ⋯ β_(i−1) · (1 − β_i), β_j = 1 − Σ min(q, r_j) the "
              "probability that draft j is rejected: the drafts must be tried in their own order, "
              "each against its own residual r_j.")


def one_hot_target(check: Recorder, answers: OneHotAnswers) -> None:
    """With p the one-hot of ``token``, the first draft equal to it is accepted (index m if
    none is), and the token is always ``token``."""
    token, drafts, pairs = answers.token, answers.drafts, answers.pairs
    expected = [(row.index(token) if token in row else len(row), token) for row in drafts]
    wrong = sorted({(tuple(d), got, want) for d, got, want in zip(drafts, pairs, expected) if got != want})
    check.require("a one-hot target accepts exactly its argmax", not wrong,
                  f"with p the one-hot of token {token}, (drafts, returned, expected) were "
                  f"{wrong[:3]}", "min(1, p(x)/q(x)) is 1 for the argmax and 0 for every other "
                  "token; after a rejection the residual of a one-hot p is that same one-hot")


@functools.cache
def law(case: MultiDraftCase) -> dict[tuple[int, int], float]:
    """The exact law of ``(index, token)``, once per case (a case is its own key)."""
    return tree_laws.multi_draft_law(case.p, case.q, case.m)


def laws(check: Recorder, rounds: LawRounds[MultiDraftCase]) -> None:
    """The joint law of the returned ``(index, token)`` pairs, the token's and the index's."""
    case, pairs = rounds.case, rounds.outcomes
    check.test(f"{case.label}: joint law of index and token",
               stats.goodness_of_fit(pairs, law(case), "(index, token)", **LAW_TEST), JOINT_HINT)
    check.test(f"{case.label}: law of the token",
               stats.goodness_of_fit([t for _, t in pairs], tree_laws.marginal(law(case), lambda o: o[1]),
                                     "token", **LAW_TEST), TOKEN_HINT, case="must be p")
    check.test(f"{case.label}: law of the index",
               stats.goodness_of_fit([i for i, _ in pairs], tree_laws.marginal(law(case), lambda o: o[0]),
                                     "index", **LAW_TEST), INDEX_HINT)
