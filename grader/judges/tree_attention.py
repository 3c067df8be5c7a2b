"""The tree_attention check's expected values: each tree's layout by its definition (a node
sees itself and its ancestors; its depth is its path's length), and a plain forward per node
over its path to hold one tree forward with the learner's layout to."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from grader.judges import mistakes
from grader.oracle import tiny
from grader.verdict import joined
from solutions.trees import tree_forward

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.trees import Forwards, Layout

TOLERANCE = 1e-9  # float64 logits: a right layout agrees to rounding (about 1e-15)
MASK_HINT = ("a node must see the text and its own path only: itself and its ancestors, never its "
             "siblings, its cousins or any other branch; then its logits are those of a plain forward "
             "over the text and its path.",
             "mask[i, j] is True iff j == i or j is an ancestor of i (follow parents up to −1); in "
             "topological order a node's row is its parent's row and itself.",
             "mask = torch.eye(N, dtype=torch.bool), then for each i with parents[i] >= 0: "
             "mask[i] |= mask[parents[i]]")
DEPTH_HINT = ("a node sits where its token would in a plain text: one position after its parent, "
              "not at its index in the flattened tree.",
              "depths[i] is 1 for a child of the root (parents[i] == −1) and depths[parents[i]] + 1 "
              "otherwise; the node goes at position len(text) − 1 + depth.")


def compare(check: CheckRun, given: Layout) -> None:
    """The learner's mask and depths against the reference's layout of the parents; a wrong
    one that a usual mistake explains is named: the mask transposed, depths counted from 0,
    or the nodes' places in the flattened tree."""
    name, parents, mask, depths = given.name, given.parents, given.mask, given.depths
    expected_mask, expected_depths = layout(parents)
    wrong = [i for i in range(len(parents)) if not torch.equal(mask[i], expected_mask[i])]
    table = [["node", "parent", "sees", "should see"]] + [
        [str(i), str(parents[i]), str(mask[i].nonzero().flatten().tolist()),
         str(expected_mask[i].nonzero().flatten().tolist())] for i in wrong[:5]]
    parent_only = torch.eye(len(parents), dtype=torch.bool)
    for i, parent in enumerate(parents):
        parent_only[i, parent] |= parent >= 0
    usual = [("the mask transposed: row i must list what node i sees (itself and its ancestors), not the "
              "nodes that see it", expected_mask.T),
             ("each node's parent marked, not its other ancestors: a node sees its whole path, so its row is "
              "its parent's row (already complete, in topological order) and itself", parent_only)]
    check.require("mask", not wrong, f"rows {wrong} of the mask are wrong for parents {parents}"
                  f"{mistakes.named_mistake(mask, expected_mask, usual, 0.0)}", MASK_HINT, table, case=name)
    counted = [("depths counted from 0: a child of the root has depth 1", expected_depths - 1),
               ("each node's place in the flattened tree, not its depth", torch.arange(1, len(parents) + 1))]
    check.require("depths", torch.equal(depths, expected_depths),
                  f"gave depths {depths.tolist()} for parents {parents}; expected {expected_depths.tolist()}"
                  f"{mistakes.named_mistake(depths, expected_depths, counted, 0.0)}", DEPTH_HINT, case=name)


def path(parents: list[int], node: int) -> list[int]:
    """The nodes from the root's child down to ``node``, ``node`` last."""
    found = []
    while node >= 0:
        found.insert(0, node)
        node = parents[node]
    return found


def layout(parents: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """``(mask [N, N] bool, depths [N] long)`` by the definition: row i marks the nodes of
    node i's path, and its depth is the path's length."""
    paths = [path(parents, i) for i in range(len(parents))]
    mask = torch.zeros(len(parents), len(parents), dtype=torch.bool)
    for i, nodes in enumerate(paths):
        mask[i, nodes] = True
    return mask, torch.tensor([len(nodes) for nodes in paths], dtype=torch.long)


def forwards(check: CheckRun, given: Forwards) -> None:
    """``check_forward`` of each layout on a tiny Llama and a tiny GPT-2."""
    target, gpt2 = tiny.tiny_pair(given.model_seed)
    for model, label in ((target, "tiny Llama, rotary positions"), (gpt2, "tiny GPT-2, learned positions")):
        for tree in given.layouts:
            check_forward(check, model, label, tree, given.text)


@torch.no_grad()
def check_forward(check: CheckRun, model, label: str, tree: Layout, text: list[int]) -> None:
    """One forward over the text and the tree against one plain forward per node."""
    name, parents = tree.name, tree.parents
    nodes = [(3 * i + 1) % model.config.vocab_size for i in range(len(parents))]
    ids = torch.tensor([text + nodes])
    logits = tree_forward(model, ids, len(text), tree.mask, tree.depths, None, rows=len(nodes))
    differ = []
    for i in range(len(nodes)):
        tokens = [nodes[j] for j in path(parents, i)]
        plain = model(torch.tensor([text + tokens])).logits[0, -1]
        gap = float((logits[i] - plain).abs().max())
        if not gap < TOLERANCE:
            differ.append((i, tokens, gap))
    table = [["node", "its path", "largest logit difference"]] + [
        [str(i), str(path), f"{gap:.2e}"] for i, path, gap in differ[:5]]
    check.require("one tree forward = a forward per path", not differ,
                  f"with your mask and depths, nodes {[i for i, _, _ in differ]} of {len(nodes)} "
                  f"got logits that differ from a plain forward over the text {text} and their own "
                  "path", joined(MASK_HINT, DEPTH_HINT), table, case=f"{label}, {name}")
