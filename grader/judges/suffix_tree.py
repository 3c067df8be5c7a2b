"""The suffix_tree check's expected trees: the reference's speculation_tree on the same index."""
import math

from grader.checks.harness import CheckRun
from solutions.suffix import speculation_tree

TREE_HINT = ("grow the tree best-first: the root is the longest match (score 1.0); a child's score is its "
             "parent's × count(child) / the sum of the counts of all the parent's children; pop the best "
             "candidate from a heap, append it, push its children (unless it is at max_depth); keep a candidate "
             "only if its score is ≥ threshold; stop at max_nodes nodes.",
             "heap entries (-score, a counter, ...); a node pushes its children sorted by (-count, token), so "
             "that ties go to the one pushed first; score = parent_score * count / total")
ROUNDING = 1e-12


def same_tree(check: CheckRun, case, tree: tuple[list[int], list[int], list[float]]) -> None:
    expected = speculation_tree(case.index(), *case.arguments())
    parents, tokens, scores = tree
    nodes, expected_nodes = list(zip(parents, tokens)), list(zip(expected[0], expected[1]))
    first = next((i for i, (a, b) in enumerate(zip(nodes, expected_nodes)) if a != b),
                 min(len(nodes), len(expected_nodes)))
    check.require("the tree's parents and tokens", nodes == expected_nodes,
                  f"(parent, token) of {len(nodes)} nodes: {nodes}; expected {len(expected_nodes)}: "
                  f"{expected_nodes}; the first difference is at node {first}" + _named(nodes, expected_nodes, tree,
                                                                                       expected, case),
                  TREE_HINT, case=case.name)
    close = len(scores) == len(expected[2]) and all(math.isclose(a, b, rel_tol=ROUNDING, abs_tol=ROUNDING)
                                                    for a, b in zip(scores, expected[2]))
    check.require("the tree's scores", close, f"scores {scores}; expected {expected[2]}", TREE_HINT, case=case.name)


def _named(nodes, expected_nodes, tree, expected, case) -> str:
    """Words for a tree that differs in a way that names its bug, "" otherwise."""
    if len(nodes) > len(expected_nodes) and nodes[:len(expected_nodes)] == expected_nodes:
        return "; every node of the reference's and more: a node kept below the threshold or past max_depth"
    if len(nodes) < len(expected_nodes) and nodes == expected_nodes[:len(nodes)]:
        dropped = expected[2][len(nodes)]
        if dropped == case.threshold:
            return f"; a node of score exactly threshold = {case.threshold} dropped: keep scores ≥ threshold"
    if sorted(nodes) == sorted(expected_nodes):
        return "; the same nodes in another order: pop the best-scored candidate first"
    return ""
