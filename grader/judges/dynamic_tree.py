"""The dynamic_tree check's expected trees: the reference's grow_tree after the same head has
read the same pairs."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from transformers import DynamicCache

from grader.judges.tree_suite import require_same_tree
from solutions.eagle import feature_draft_step, grow_tree

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.trees import Grown

TREE_HINT = ("a node's confidence is the product of the head's probabilities along its path, from "
             "logits_processor's distribution (the softmax of the logits under greedy decoding): at each "
             "level expand the top_k most confident nodes of the level just made, each into its top_k "
             "likeliest tokens, then keep the total most confident of all the nodes made.",
             "keep log confidences and add them down the tree; the expanded nodes' pairs are (the parent's "
             "predicted feature, the node's token), read with tree_attention's mask and positions; keep "
             "argsort(scores, descending=True, stable=True)[:total] without the -inf ones, in the order made")
DEEPER = ("; the root's children agree, so look below them: the confidences added down the path, or the "
          "expanded nodes' forward (their pairs, the mask and the positions that tree_attention gives)")
ORDER = "kept nodes returned in confidence order (argsort's), not back in the order they were made"
ORDER_HINT = ("after choosing the total most confident nodes, sort their indices back into the order the nodes "
              "were made (a parent before its children, level by level, siblings likeliest first), then "
              "renumber the parents")
EXPANSION = ("a level's chosen nodes expanded in the order they were made, not in topk's order (most confident "
             "first)")
EXPANSION_HINT = ("expand a level's chosen nodes in topk's order, most confident first: the next level's nodes "
                  "are made in that order, the most confident parent's children first")
ZERO = "kept nodes of confidence 0 among the total most confident"
ZERO_HINT = ("a node of confidence 0 (a token logits_processor gives no mass, as top-k's cut ones) can never be "
             "accepted: drop the nodes whose log confidence is −inf after taking the total most confident, even "
             "when fewer than total remain")
CACHE_HINT = ("the head reads each expanded node once, after the text's true pairs: its cache then holds "
              "those pairs and the expanded nodes, nothing else (the last level is never read).",
              "one feature_draft_step per level over that level's expanded nodes, with the head's cache")


@torch.no_grad()
def same_tree(check: CheckRun, grown: Grown) -> None:
    cache = DynamicCache()
    predicted, logits = feature_draft_step(grown.head, grown.features, grown.tokens, cache)
    expected_parents, expected_tokens = grow_tree(grown.head, predicted[:, -1:], logits[0, -1], cache,
                                                  grown.processor, *grown.shape)
    expected, got = list(zip(expected_parents, expected_tokens.tolist())), grown.nodes
    roots_children = [node for node in got if node[0] == -1] == [node for node in expected if node[0] == -1]
    named = _named(got, expected, grown.shape[2])
    require_same_tree(check, "the tree", got, expected,
                      named[0] if named else DEEPER if roots_children and got != expected else "",
                      (named[1], *TREE_HINT) if named else TREE_HINT, grown.case)
    check.require("the head's cache after growing", grown.cached == cache.get_seq_length(),
                  f"held {grown.cached} entries; expected {cache.get_seq_length()}: the text's "
                  f"{grown.features.shape[1]} pairs and the {cache.get_seq_length() - grown.features.shape[1]} "
                  "expanded nodes", CACHE_HINT, case=grown.case)


def _named(got: list, expected: list, total: int) -> tuple[str, str] | None:
    """(words for the message, a first hint) when the tree differs from the reference's in a
    way that names its bug: the same nodes in another order, or more nodes than the reference
    keeps when it keeps fewer than ``total`` (it drops only nodes of confidence 0)."""
    mine, reference = _paths(got), _paths(expected)
    if got != expected and got == _expanded_in_made_order(expected):
        return (f"; the same nodes, in another order: {EXPANSION}", EXPANSION_HINT)
    if got != expected and sorted(mine) == sorted(reference):
        return (f"; the same nodes, in another order: {ORDER}", ORDER_HINT)
    if len(expected) < len(got) <= total and set(reference) <= set(mine):
        return (f"; the reference's {len(expected)} nodes and {len(got) - len(expected)} more, which it drops: "
                f"{ZERO}", ZERO_HINT)
    return None


def _expanded_in_made_order(nodes: list) -> list:
    """``nodes`` (parent, token), renumbered as a grow_tree that expands each level's chosen
    nodes in the order they were made numbers them: level by level, each level ordered by
    the siblings' ranks along the path from the root."""
    ranks, keys = {}, []
    for parent, _ in nodes:
        ranks[parent] = ranks.get(parent, -1) + 1
        keys.append((keys[parent] if 0 <= parent < len(keys) else ()) + (ranks[parent],))
    order = sorted(range(len(nodes)), key=lambda i: (len(keys[i]), keys[i]))
    place = {old: new for new, old in enumerate(order)}
    return [(place.get(nodes[i][0], -1), nodes[i][1]) for i in order]


def _paths(nodes: list) -> list[tuple[int, ...]]:
    """Each node's tokens from the root down: the node named without its place in the list
    (parents out of range give an empty path)."""
    paths = []
    for parent, token in nodes:
        paths.append((paths[parent] if 0 <= parent < len(paths) else ()) + (token,))
    return paths
