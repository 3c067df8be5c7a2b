"""The suffix_tree check's expected trees: the reference's speculation_tree on the same index."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from grader.judges.tree_suite import require_same_tree
from solutions.suffix import speculation_tree

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.suffix_tree import Tree
    from grader.judged.suffix_tree import TreeCase as Case

TREE_HINT = ("grow the tree best-first below the root, the longest match (score 1.0, not itself a node); a "
             "child's score is its parent's × count(child) / the sum of the counts of all the parent's children; "
             "pop the best candidate from a heap, append it, push its children (unless it is at max_depth; the "
             "root is at depth 0); keep a candidate only if its score is ≥ threshold; stop at max_nodes nodes.",
             "heap entries (-score, a counter, ...); a node pushes its children sorted by (-count, token), so "
             "that ties go to the one pushed first; score = parent_score * count / total")
SCORE_HINT = ("a child scored above its parent: a child's score is its parent's score × count(child) / total, "
              "so scores multiply down a path and never rise.",
              "push each child with score = parent_score * count / total, parent_score the score of the node "
              "just popped (1.0 for the root's children)")
ROUNDING = 1e-12


def same_tree(check: CheckRun, tree: Tree) -> None:
    case, parents, scores = tree.case, tree.parents, tree.scores
    expected = speculation_tree(case.index(), *case.arguments())
    nodes, expected_nodes = list(zip(parents, tree.tokens)), list(zip(expected[0], expected[1]))
    require_same_tree(check, "the tree's parents and tokens", nodes, expected_nodes,
                      _named(nodes, expected_nodes, expected[2], case), TREE_HINT, case.name)
    close = len(scores) == len(expected[2]) and all(math.isclose(a, b, rel_tol=ROUNDING, abs_tol=ROUNDING)
                                                    for a, b in zip(scores, expected[2]))
    above = next((i for i, p in enumerate(parents) if p >= 0 and scores[i] > scores[p]), None)
    check.require("the tree's scores", close, f"scores {scores}; expected {expected[2]}"
                  + (f"; node {above} scores {scores[above]}, above its parent's {scores[parents[above]]}"
                     if above is not None else ""),
                  SCORE_HINT if above is not None else TREE_HINT, case=case.name)


def _named(nodes: list[tuple[int, int]], expected_nodes: list[tuple[int, int]], expected_scores: list[float],
           case: Case) -> str:
    """Words for a tree that differs in a way that names its bug, "" otherwise."""
    if len(nodes) > len(expected_nodes) and nodes[:len(expected_nodes)] == expected_nodes:
        return "; every node of the reference's and more: a node kept below the threshold or past max_depth"
    if len(nodes) < len(expected_nodes) and nodes == expected_nodes[:len(nodes)]:
        dropped = expected_scores[len(nodes)]
        if dropped == case.threshold:
            return f"; a node of score exactly threshold = {case.threshold} dropped: keep scores ≥ threshold"
    shifted = [(p - 1, t) for p, t in nodes[1:]]
    if nodes and nodes[0][0] == -1 and shifted and shifted == expected_nodes[:len(shifted)]:
        return ("; node 0 is the root (the match) itself: the root is not a node. The nodes are its "
                "descendants; a child of the root has parent -1")
    if sorted(nodes) == sorted(expected_nodes):
        return "; the same nodes in another order: pop the best-scored candidate first"
    return ""
