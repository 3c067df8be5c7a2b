"""Check `grow_tree`, EAGLE-2's dynamic tree (lesson 11), on the tiny target and the head of
the loop checks: after the head has read a text's true pairs, for several shapes and
processors, the tree it grows (parents and tokens) must be a tree (each parent before its
children, at most ``total`` nodes, siblings distinct) and the reference's tree; the head's
cache must then hold the text's pairs and the expanded nodes. What the head reads at
depth 2 and below (mask, positions, the parents' predicted features) decides which nodes
win, so a wrong forward shows in the tree. The reference's trees are the decider's alone
(grader/judges/dynamic_tree.py)."""

import torch
from transformers import DynamicCache

from grader.checks.eagle_generate import head_forward, models
from grader.checks.feature_draft import pairs_of, with_cache_length
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import GREEDY
from grader.checks.tree_suite import is_tree
from grader.judged.trees import Grown
from solutions import sampling

CASES = [  # (processor, depth, top_k, total, text length)
    (GREEDY, 3, 2, 5, 6),
    (sampling.MultinomialProcessor(temperature=0.6), 4, 3, 10, 5),
    (sampling.TopKProcessor(temperature=1.0, top_k=2), 3, 3, 14, 4),  # a third child has confidence 0: 18
    # nodes made, 12 of them of nonzero confidence, so keeping those of confidence 0 shows
    (sampling.MultinomialProcessor(temperature=1.0), 1, 4, 3, 3),  # one level: the root's 3 likeliest of 4
    (sampling.MultinomialProcessor(temperature=1.0), 4, 2, 64, 7),  # fewer nodes made than total: all kept
]
SHAPE_HINT = ("grow_tree returns (parents, tokens): parents a list of Python ints, -1 for a child of the "
              "root and otherwise the index of an earlier node; tokens a LongTensor [N] with one token per "
              "node, N ≤ total")
RENUMBER_HINT = ("parents[i] is the index of node i's parent among the KEPT nodes: after keeping the total most "
                 "confident, renumber the parents (a map from a node's place among all the nodes made to its "
                 "place among the kept ones)")


def grown(check: CheckRun, grow, head, feature, logits, cache, processor, depth, top_k, total, what: str):
    """The learner's ``(parents, tokens)``, checked to be a tree of at most ``total`` nodes
    with distinct siblings, and the head's cache length after the call."""
    with torch.no_grad():
        result, length = check.call(with_cache_length(grow, cache), head, feature, logits, cache, processor, depth,
                                    top_k, total, what=what)
    parents, tokens = result if isinstance(result, tuple) and len(result) == 2 else (None, None)
    if not (is_tree(parents) and isinstance(tokens, torch.Tensor) and tokens.dtype == torch.long
            and list(tokens.shape) == [len(parents)] and len(parents) <= total):
        renumber = isinstance(parents, list) and any(isinstance(p, int) and p >= i for i, p in enumerate(parents))
        check.fail("return value", f"returned {str(result)[:120]} {what}"
                   + ("; a parent's index is not below its node's: the parents are not renumbered among the kept "
                      "nodes" if renumber else ""),
                   RENUMBER_HINT if renumber else SHAPE_HINT)
    siblings = {}
    for parent, token in zip(parents, tokens.tolist()):
        siblings.setdefault(parent, []).append(token)
    repeated = {parent: kids for parent, kids in siblings.items() if len(set(kids)) < len(kids)}
    check.require("siblings are distinct tokens", not repeated,
                  f"children of the same node repeat a token {what}: {repeated} (-1: the root)",
                  "a node's children are its top_k likeliest tokens (topk), each once")
    return parents, tokens.tolist(), length


def run(check: CheckRun) -> None:
    grow = check.function("grow_tree")
    target, head = models()
    for processor, depth, top_k, total, length in CASES:
        label = f"{processor!r}, depth={depth}, top_k={top_k}, total={total}"
        features, tokens = pairs_of(check, target, 1, length)
        cache = DynamicCache()
        with torch.no_grad():
            predicted, logits = head_forward(head, features, tokens, cache)
        parents, tree_tokens, cached = grown(check, grow, head, predicted[:, -1:], logits[0, -1], cache, processor,
                                             depth, top_k, total, f"({label}, after {length} true pairs)")
        check.judge("same_tree", Grown(label, head, features, tokens, processor, (depth, top_k, total),
                                       list(zip(parents, tree_tokens)), cached))
