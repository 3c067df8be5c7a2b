"""Check `speculation_tree` (lesson 12): the tree SuffixDecoding grows below the longest
match, best-first by score, on fixed texts and contexts whose trees show each rule: a
confident match (a long chain), several continuations (branches), a score exactly at the
threshold (kept), ``max_nodes`` and ``max_depth`` reached, ``max_depth`` 0 (no tree), ties (the first pushed wins),
the empty match (unigram counts) and an unknown context; one index is a ``CorpusIndex``
(the suffix array: the tree must use only ``find`` and ``children``); then random texts.
The trees must be the reference's: parents and tokens exactly, scores to rounding
(grader/judges/suffix_tree.py)."""
import torch

from grader.checks.harness import CheckRun
from grader.checks.tree_suite import is_tree
from grader.judged.suffix_tree import Tree
from grader.judged.suffix_tree import TreeCase as Case

REPEATED = (1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 0)


CASES = [
    Case("a confident match: a chain", REPEATED, (0, 1, 2)),
    Case("several continuations: branches", (1, 2, 3, 1, 2, 4, 1, 2, 3, 1, 2, 5, 3, 1), (7, 1), threshold=0.05),
    Case("a score exactly at the threshold is kept", (1, 2, 1, 3, 1, 2, 1, 3), (1,), threshold=0.5),
    Case("max_nodes reached", REPEATED, (5, 0), max_nodes=5),
    Case("max_depth reached", REPEATED, (3,), max_depth=2),
    Case("max_depth 0 (the loop's last allowed token): no tree", REPEATED, (0, 1, 2), max_depth=0),
    Case("ties: the candidate pushed first wins", (4, 2, 4, 1, 4, 3, 4, 2, 4, 1, 4, 3), (4,), max_nodes=4,
         threshold=0.0),
    Case("the empty match: unigram counts", (1, 1, 2, 1, 3, 1, 2), (5,), threshold=0.2),
    Case("an unknown context, a high threshold: no tree", (1, 2, 3, 4, 1, 2, 3, 5), (0,), threshold=0.5),
    Case("a corpus index (suffix array)", REPEATED + (1, 2, 5), (4, 0, 1), max_nodes=10, corpus=True),
]
HINT_SHAPE = ("speculation_tree returns (parents, tokens, scores): three lists of the same length N ≤ max_nodes; "
              "parents[i] a Python int, -1 or an earlier node's index; tokens Python ints; scores Python floats")


def random_cases(check: CheckRun) -> list[Case]:
    """Texts of 60 tokens over three tokens, each asked about its own last tokens."""
    generator = check.generator("random texts")
    cases = []
    for number in range(3):
        text = tuple(torch.randint(0, 3, (60,), generator=generator).tolist())
        cases.append(Case(f"random text {number + 1}", text, text[-4:], max_nodes=12, threshold=0.05,
                          corpus=number == 2))
    return cases


def run(check: CheckRun) -> None:
    grow = check.function("speculation_tree")
    for case in CASES + random_cases(check):
        what = f"({case.name}: text {list(case.text)}, context {list(case.context)})"
        result = check.call(grow, case.index(), *case.arguments(), what=what)
        check.judge("same_tree", Tree(case, *tree_of(check, result, case.max_nodes, what)))


def tree_of(check: CheckRun, result, max_nodes: int, what: str) -> tuple[list[int], list[int], list[float]]:
    """``(parents, tokens, scores)`` after checking that they are a tree of at most ``max_nodes`` nodes."""
    parents, tokens, scores = result if isinstance(result, tuple) and len(result) == 3 else (None, None, None)
    if not (is_tree(parents) and isinstance(tokens, list) and isinstance(scores, list)
            and len(parents) == len(tokens) == len(scores) <= max_nodes
            and all(type(t) is int for t in tokens) and all(type(s) is float for s in scores)):
        check.fail("return value", f"returned {str(result)[:160]} {what}", HINT_SHAPE)
    return parents, tokens, scores
