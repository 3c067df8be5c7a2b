"""The greedy_match check's expected values: argmax matching, round by round."""
from collections import Counter

import numpy as np

from grader.checks.harness import CheckRun

SHOWN_ROWS = 5  # distinct wrong rounds shown in a verdict's table
HINT = ("accept drafts while candidate_tokens[i] == target_dists[i].argmax(); at the first "
        "mismatch return its position and the argmax there; when all k match, return k and the "
        "argmax of the last row, target_dists[k]. On ties argmax (like GreedyProcessor) takes the "
        "first maximal token: compare token ids with the argmax, not probabilities with the max.")


def expected(target: np.ndarray, draft: np.ndarray) -> tuple[int, int]:
    """``(m, argmax p_m)``, ``m`` the first draft that is not its row's argmax (``k`` if none)."""
    best = target.argmax(axis=-1)  # numpy, like torch, takes the first maximum
    stop = next((i for i, (d, b) in enumerate(zip(draft, best)) if d != b), len(draft))
    return stop, int(best[stop])


def compare(check: CheckRun, prop: str, answered: list) -> None:
    """Require every round's ``(rejected_idx, token)`` to be ``expected``'s; ``answered``
    holds ``(target rows [k + 1, V], drafts [n, k], the n returned pairs)`` for each k."""
    wrong = Counter()  # a distinct wrong row -> how many rounds gave it
    for target, drafts, pairs in answered:
        for draft, got in zip(drafts, pairs):
            answer = expected(target, draft)
            if got != answer:
                wrong[(str(len(draft)), str(draft.tolist()), str(target.argmax(-1).tolist()), str(got),
                       str(answer))] += 1
    table = [["k", "drafts", "argmax rows", "yours", "expected", "rounds"]]
    table += [[*row, str(count)] for row, count in wrong.most_common(SHOWN_ROWS)]
    check.require(prop, not wrong, f"(rejected_idx, token) differs from greedy verification in "
                  f"{wrong.total()} rounds ({len(wrong)} distinct, the commonest shown)", HINT, table)
