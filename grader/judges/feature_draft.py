"""The feature_draft check's expected values: the reference's step on the same pairs."""
import torch
from transformers import DynamicCache

from grader.checks.eagle_generate import head_forward
from grader.checks.feature_draft import SHAPE_HINT, TREE_PARENTS, TREE_TEXT
from grader.checks.harness import CheckRun
from solutions.eagle import feature_draft_step
from solutions.trees import tree_attention, tree_layout

TOLERANCE = 1e-9  # float64
TREE_HINT = ("a tree's nodes are read with the tree's attention_mask and position_ids: each node sees the "
             "text's pairs and its ancestors only, at the position of its depth.",
             "pass attention_mask and position_ids to head.decoder as they are")


@torch.no_grad()
def same_as_reference(check: CheckRun, case: str, head, features, tokens, got) -> None:
    expected = feature_draft_step(head, features, tokens, None)
    gaps = [float((g - e.double()).abs().max()) for g, e in zip(got, expected)]
    check.require("values", max(gaps) <= TOLERANCE,
                  f"next_features differ by up to {gaps[0]:.3g} and logits by up to {gaps[1]:.3g} from the "
                  "head's forward on these pairs: [feature ; embedding of the token] → fc → decoder → LM head",
                  SHAPE_HINT, case=case)


@torch.no_grad()
def same_as_reference_on_a_tree(check: CheckRun, head, features, tokens, got) -> None:
    cache = DynamicCache()
    head_forward(head, features[:, :TREE_TEXT], tokens[:, :TREE_TEXT], cache)
    mask, depths = tree_layout(TREE_PARENTS)
    expected = feature_draft_step(head, features[:, TREE_TEXT:], tokens[:, TREE_TEXT:], cache,
                                  *tree_attention(TREE_TEXT, mask, depths, TREE_TEXT, features.dtype))
    gaps = [float((g - e.double()).abs().max()) for g, e in zip(got, expected)]
    check.require("values on a tree's nodes", max(gaps) <= TOLERANCE,
                  f"next_features differ by up to {gaps[0]:.3g} and logits by up to {gaps[1]:.3g} from the "
                  "head's forward over these nodes with the tree's mask and positions", TREE_HINT)
