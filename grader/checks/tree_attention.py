"""Check `tree_layout`: the mask and the depths of hand-made trees (chains, stars, the
level-order trees of several branchings, a depth-first one), then what they are for: one
forward of a tiny Llama (rotary positions) and of a tiny GPT-2 (learned positions) over a
text and a whole tree, with the learner's layout, must give every node the logits of a
plain forward over its own path, in float64."""
import torch

from grader.checks.harness import CheckRun
from grader.oracle import tiny
from solutions.trees import tree_forward, tree_parents
from solutions.trees import tree_layout as reference_layout

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
MASK_HINT = ("mask[i, j] is True iff j == i or j is an ancestor of i (follow parents up to −1). "
             "A node must not see its siblings, its cousins or any other branch: each node's "
             "logits must be those of a plain forward over the text and its own path.")
DEPTH_HINT = ("depths[i] is 1 for a child of the root (parents[i] == −1) and depths[parents[i]] + 1 "
              "otherwise: a node sits one position after its parent, at len(text) − 1 + depth, "
              "not at its index in the flattened tree.")


def run(check: CheckRun) -> None:
    layout = check.function("tree_layout")
    layouts = {name: laid_out(check, layout, parents, name) for name, parents in TREES.items()}
    for name, parents in TREES.items():
        compare(check, name, parents, *layouts[name])
    target, gpt2 = tiny.tiny_pair(MODEL_SEED)
    for model, label in ((target, "tiny Llama, rotary positions"), (gpt2, "tiny GPT-2, learned positions")):
        for name in FORWARD_TREES:
            check_forward(check, model, label, name, TREES[name], *layouts[name])


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


def compare(check: CheckRun, name: str, parents: list[int], mask, depths) -> None:
    expected_mask, expected_depths = reference_layout(parents)
    wrong = [i for i in range(len(parents)) if not torch.equal(mask[i], expected_mask[i])]
    table = [["node", "parent", "sees", "should see"]] + [
        [str(i), str(parents[i]), str(mask[i].nonzero().flatten().tolist()),
         str(expected_mask[i].nonzero().flatten().tolist())] for i in wrong[:5]]
    check.require(f"mask ({name})", not wrong,
                  f"rows {wrong} of the mask are wrong for parents {parents}", MASK_HINT, table)
    check.require(f"depths ({name})", torch.equal(depths, expected_depths),
                  f"gave depths {depths.tolist()} for parents {parents}; expected "
                  f"{expected_depths.tolist()}", DEPTH_HINT)


@torch.no_grad()
def check_forward(check: CheckRun, model, label: str, name: str, parents: list[int], mask, depths) -> None:
    """One forward over the text and the tree against one plain forward per node."""
    nodes = [(3 * i + 1) % model.config.vocab_size for i in range(len(parents))]
    ids = torch.tensor([TEXT + nodes])
    logits = tree_forward(model, ids, len(TEXT), mask, depths, None, rows=len(nodes))
    differ = []
    for i in range(len(nodes)):
        path, j = [], i
        while j >= 0:
            path.insert(0, nodes[j])
            j = parents[j]
        plain = model(torch.tensor([TEXT + path])).logits[0, -1]
        gap = float((logits[i] - plain).abs().max())
        if not gap < TOLERANCE:
            differ.append((i, path, gap))
    table = [["node", "its path", "largest logit difference"]] + [
        [str(i), str(path), f"{gap:.2e}"] for i, path, gap in differ[:5]]
    check.require(f"one tree forward = a forward per path ({label}, {name})", not differ,
                  f"with your mask and depths, nodes {[i for i, _, _ in differ]} of {len(nodes)} "
                  f"got logits that differ from a plain forward over the text {TEXT} and their own "
                  "path", MASK_HINT + " " + DEPTH_HINT, table)
