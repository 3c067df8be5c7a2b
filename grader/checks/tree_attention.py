"""Check `tree_layout`: the mask and the depths of hand-made trees (chains, stars, the
level-order trees of several branchings, a depth-first one), then what they are for: one
forward of a tiny Llama (rotary positions) and of a tiny GPT-2 (learned positions) over a
text and a whole tree, with the learner's layout, must give every node the logits of a
plain forward over its own path, in float64. The expected layouts and forwards are the decider's alone
(grader/judges/tree_attention.py)."""
import torch

from grader.checks.harness import CheckRun
from grader.judged.trees import Forwards, Layout
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


def run(check: CheckRun) -> None:
    layout = check.function("tree_layout")
    layouts = {name: Layout(name, parents, *laid_out(check, layout, parents, name)) for name, parents in TREES.items()}
    for name in TREES:
        check.judge("compare", layouts[name])
    check.judge("forwards", Forwards([layouts[name] for name in FORWARD_TREES], TEXT, MODEL_SEED))


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
