"""The tree_attention check's expected values: each tree's layout by its definition (a node
sees itself and its ancestors; its depth is its path's length), and a plain forward per node
over its path to hold one tree forward with the learner's layout to."""
import torch

from grader.checks.harness import CheckRun
from grader.checks.tree_attention import (DEPTH_HINT, FORWARD_TREES, MASK_HINT, MODEL_SEED, TEXT,
                                          TOLERANCE, TREES)
from grader.judges import mistakes
from grader.oracle import tiny
from grader.verdict import joined
from solutions.trees import tree_forward


def compare(check: CheckRun, name: str, parents: list[int], mask, depths) -> None:
    """The learner's ``mask`` and ``depths`` against the reference's layout of ``parents``;
    a wrong one that a usual mistake explains is named: the mask transposed, depths counted
    from 0, or the nodes' places in the flattened tree."""
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


def forwards(check: CheckRun, layouts: dict) -> None:
    """``check_forward`` of each tree of FORWARD_TREES on a tiny Llama and a tiny GPT-2."""
    target, gpt2 = tiny.tiny_pair(MODEL_SEED)
    for model, label in ((target, "tiny Llama, rotary positions"), (gpt2, "tiny GPT-2, learned positions")):
        for name in FORWARD_TREES:
            check_forward(check, model, label, name, TREES[name], *layouts[name])


@torch.no_grad()
def check_forward(check: CheckRun, model, label: str, name: str, parents: list[int], mask, depths) -> None:
    """One forward over the text and the tree against one plain forward per node."""
    nodes = [(3 * i + 1) % model.config.vocab_size for i in range(len(parents))]
    ids = torch.tensor([TEXT + nodes])
    logits = tree_forward(model, ids, len(TEXT), mask, depths, None, rows=len(nodes))
    differ = []
    for i in range(len(nodes)):
        tokens = [nodes[j] for j in path(parents, i)]
        plain = model(torch.tensor([TEXT + tokens])).logits[0, -1]
        gap = float((logits[i] - plain).abs().max())
        if not gap < TOLERANCE:
            differ.append((i, tokens, gap))
    table = [["node", "its path", "largest logit difference"]] + [
        [str(i), str(path), f"{gap:.2e}"] for i, path, gap in differ[:5]]
    check.require("one tree forward = a forward per path", not differ,
                  f"with your mask and depths, nodes {[i for i, _, _ in differ]} of {len(nodes)} "
                  f"got logits that differ from a plain forward over the text {TEXT} and their own "
                  "path", joined(MASK_HINT, DEPTH_HINT), table, case=f"{label}, {name}")
