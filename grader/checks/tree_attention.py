"""Check `tree_layout`: the mask and the depths of hand-made trees (chains, stars, the
level-order trees of several branchings, a depth-first one), then what they are for: one
forward of a tiny Llama (rotary positions) and of a tiny GPT-2 (learned positions) over a
text and a whole tree, with the learner's layout, must give every node the logits of a
plain forward over its own path, in float64. The expected layouts and forwards are the decider's alone
(grader/judges/tree_attention.py)."""
import torch

from grader.checks.harness import CheckRun
from solutions.trees import tree_parents

MODEL_SEED = 7
TREES = {
    "one node": [-1],
    "a chain of four": [-1, 0, 1, 2],
    "a star of three": [-1, -1, -1],
    "branching (2, 2)": tree_parents((2, 2)),
    "branching (3, 1)": tree_parents((3, 1)),
    "branching (2, 2, 1)": tree_parents((2, 2, 1)),
    "depth first, uneven": [-1, 0, 1, 0, -1, 4, 4, 3],
}
FORWARD_TREES = ("branching (2, 2, 1)", "depth first, uneven")
TEXT = [2, 3, 4, 5]
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


def run(check: CheckRun) -> None:
    layout = check.function("tree_layout")
    layouts = {name: laid_out(check, layout, parents, name) for name, parents in TREES.items()}
    for name, parents in TREES.items():
        check.judge("compare", name, parents, *layouts[name])
    check.judge("forwards", layouts)


def laid_out(check: CheckRun, layout, parents: list[int], name: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The learner's ``(mask, depths)`` for ``parents``, after checking their types and shapes."""
    what = f"(the tree {name}, parents {parents})"
    result = check.call(layout, list(parents), what=what)
    count = len(parents)
    if not (isinstance(result, (tuple, list)) and len(result) == 2
            and all(isinstance(t, torch.Tensor) for t in result)):
        check.fail("return value", f"returned {type(result).__name__} {str(result)[:80]} {what}; "
                   "expected a pair (mask, depths) of tensors")
    mask, depths = result
    if mask.dtype != torch.bool or tuple(mask.shape) != (count, count):
        check.fail("mask type", f"mask has dtype {mask.dtype} and shape {list(mask.shape)} {what}; "
                   f"expected a torch.bool tensor of shape [{count}, {count}]")
    if depths.is_floating_point() or depths.dtype == torch.bool or tuple(depths.shape) != (count,):
        check.fail("depths type", f"depths has dtype {depths.dtype} and shape {list(depths.shape)} "
                   f"{what}; expected an integer (torch.long) tensor of shape [{count}]")
    return mask.cpu(), depths.cpu().long()
