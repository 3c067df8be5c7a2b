"""The feature_draft check's expected values: the reference's step on the same pairs."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from transformers import DynamicCache

from grader.judges.loss_suite import gap
from solutions.eagle import feature_draft_step
from solutions.trees import tree_attention, tree_layout

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Rows

TOLERANCE = 1e-9  # float64
TREE_HINT = ("a tree's nodes are read with the tree's attention_mask and position_ids: each node sees the "
             "text's pairs and its ancestors only, at the position of its depth.",
             "pass attention_mask and position_ids to head.decoder as they are")
VALUES_HINT = ("pair j is [features[:, j] ; embedding of tokens[:, j]], the feature first: head.fc fuses it, "
               "head.decoder reads it, head.lm_head scores the predicted feature.",
               "pairs = torch.cat([features, head.embed(tokens)], -1); predicted = head.decoder(inputs_embeds="
               "head.fc(pairs), cache=cache, use_cache=cache is not None).last_hidden_state; logits = "
               "head.lm_head(predicted)")
SWAPPED_HINT = ("your rows are the head's forward on [embedding ; feature]: the pair's halves are swapped. "
                "head.fc was trained on [feature ; embedding of the token], the feature first.",
                "pairs = torch.cat([features, head.embed(tokens)], -1)")


def swapped_pairs(head, features, tokens) -> tuple[torch.Tensor, torch.Tensor]:
    """The head's forward on ``[embedding ; feature]``: a learner's likeliest order bug."""
    predicted = head.decoder(inputs_embeds=head.fc(torch.cat([head.embed(tokens), features], -1)),
                             use_cache=False).last_hidden_state
    return predicted, head.lm_head(predicted)


def gaps_to(got, expected) -> list[float]:
    """The largest differences of (next_features, logits) from ``expected``'s."""
    return [gap(g, e) for g, e in zip(got, expected)]


@torch.no_grad()
def same_as_reference(check: CheckRun, rows: Rows) -> None:
    head, features, tokens = rows.head, rows.features, rows.tokens
    gaps = gaps_to(rows.got, feature_draft_step(head, features, tokens, None))
    swapped = max(gaps) > TOLERANCE and max(gaps_to(rows.got, swapped_pairs(head, features, tokens))) <= TOLERANCE
    check.require("values", max(gaps) <= TOLERANCE,
                  f"next_features differ by up to {gaps[0]:.3g} and logits by up to {gaps[1]:.3g} from the "
                  "head's forward on these pairs: [feature ; embedding of the token] → fc → decoder → LM head",
                  SWAPPED_HINT if swapped else VALUES_HINT, case=rows.case)


@torch.no_grad()
def same_as_reference_on_a_tree(check: CheckRun, rows: Rows) -> None:
    cache, text = DynamicCache(), rows.text
    feature_draft_step(rows.head, rows.features[:, :text], rows.tokens[:, :text], cache)
    mask, depths = tree_layout(list(rows.parents))
    expected = feature_draft_step(rows.head, rows.features[:, text:], rows.tokens[:, text:], cache,
                                  *tree_attention(text, mask, depths, text, rows.features.dtype))
    gaps = gaps_to(rows.got, expected)
    check.require("values on a tree's nodes", max(gaps) <= TOLERANCE,
                  f"next_features differ by up to {gaps[0]:.3g} and logits by up to {gaps[1]:.3g} from the "
                  "head's forward over these nodes with the tree's mask and positions", TREE_HINT)
