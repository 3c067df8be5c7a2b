"""The greedy_match check's expected values: argmax matching, round by round, and what a
wrong set of answers is when a usual mistake gives every one of them."""
from collections import Counter

import numpy as np

from grader.judges import mistakes
from grader.judged.verifiers import Answered, Recorder

SHOWN_ROWS = 5  # distinct wrong rounds shown in a verdict's table
HINT = ("greedy verification keeps a draft only when it is the target's most likely token at its "
        "position, and emits the target's most likely token where the first draft is not (after the "
        "last row when every draft is); on ties the first maximal token wins, as in GreedyProcessor.",
        "accept drafts while candidate_tokens[i] is the argmax of row i; at the first mismatch return "
        "its position and the argmax there; when all k match, return k and the argmax of the last row, "
        "target_dists[k]. Compare token ids with the argmax, not probabilities with the max.",
        "best = target_dists.argmax(dim=-1); the first i with best[i] != candidate_tokens[i] (k if "
        "none); return it and best[i] as 0-dim tensors")


def expected(target: np.ndarray, draft: np.ndarray, shift: int = 0) -> tuple[int, int]:
    """``(m, argmax p_m)``, ``m`` the first draft that is not its row's argmax (``k`` if none);
    ``shift`` 1 compares draft i with row i + 1's argmax instead (the rows misaligned)."""
    best = target.argmax(axis=-1)  # numpy, like torch, takes the first maximum
    stop = next((i for i, d in enumerate(draft) if d != best[i + shift]), len(draft))
    return stop, int(best[stop])


def returns_draft(target: np.ndarray, draft: np.ndarray) -> tuple[int, int]:
    """The answer with the rejected draft itself as the token, where the argmax is meant."""
    stop, token = expected(target, draft)
    return stop, int(draft[stop]) if stop < len(draft) else token


MISTAKES = {  # a usual mistake -> the answer it gives: (target rows, drafts) -> (rejected_idx, token)
    "the rejected draft itself returned as the token, where the target's argmax there is meant": returns_draft,
    "each draft compared with the argmax of the next row (the rows misaligned by one)":
        lambda target, draft: expected(target, draft, shift=1),
}


def compare(check: Recorder, answered: Answered) -> None:
    """Require every round's ``(rejected_idx, token)`` to be ``expected``'s (argmax matching on
    ``answered.case``)."""
    wrong: Counter[tuple[str, ...]] = Counter()  # a distinct wrong row -> how many rounds gave it
    rounds = [(target, draft, got) for target, drafts, pairs in answered.rounds for draft, got in zip(drafts, pairs)]
    for target, draft, got in rounds:
        answer = expected(target, draft)
        if got != answer:
            wrong[(str(len(draft)), str(draft.tolist()), str(target.argmax(-1).tolist()), str(got),
                   str(answer))] += 1
    table = [["k", "drafts", "argmax rows", "yours", "expected", "rounds"]]
    table += [[*row, str(count)] for row, count in wrong.most_common(SHOWN_ROWS)]
    candidates = [(what, [answer(t, d) for t, d, _ in rounds]) for what, answer in MISTAKES.items()]
    mistake = mistakes.named_mistake([got for _, _, got in rounds], [expected(t, d) for t, d, _ in rounds],
                                     candidates, 0.0, "; every answer is what you get with ")
    check.require("argmax matching", not wrong, f"(rejected_idx, token) differs from greedy verification in "
                  f"{wrong.total()} rounds ({len(wrong)} distinct, the commonest shown){mistake}", HINT, table,
                  case=answered.case)
