"""The unrolled_loss check's expected values: the reference's unroll on the same head and
windows, its gradients and the weights after the check's Adam step; for ``steps = 1``,
EAGLE-1's loss (``eagle_loss`` of ``feature_draft_step``'s forward) itself.

Step ``j``'s loss does not depend on how many steps follow it, so with ``L(s)`` the mean of
the first ``s`` steps' losses, the last step's alone is ``s · L(s) − (s − 1) · L(s − 1)``:
a learner's value equal to it is named."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import torch

from grader.judges import loss_suite
from solutions.eagle import eagle_loss, feature_draft_step, unrolled_eagle_loss

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Gradients, Unroll, Unrolled

TOLERANCE = 1e-10  # the loss, float64
GRADIENT_TOLERANCE = 1e-9
HINT = ("the unroll drafts from every root t as decoding does: step 0 reads the pairs (f_t, x_(t+1)) at "
        "positions t (causal); step j ≥ 1 reads (f̂^(j−1) of root t, x_(t+j+1)) at position t + j and sees "
        "step 0's keys at positions ≤ t and root t's own keys of steps 1 … j, nothing else; each step's "
        "eagle_loss is taken against the target at the positions it predicts (t + j + 1, while it exists), "
        "and the loss is their mean over the steps.",
        "one DynamicCache for all the steps; step j's mask over [step 0 | … | step j] is [tril | I | … | I] "
        "(attention_bias of root ≥ arange(n_0), then root == arange(n_i)), position_ids root + j; "
        "feature_draft_step(head, predicted[:, :n_j], tokens[:, j + 1:], cache, mask, positions), then "
        "eagle_loss(predicted, features[:, j + 1:], logits, target_logits[:, j + 1:], …)")
POSITIONS_LEFT_OUT = ("the loss of steps whose forward is given no position_ids: the decoder then puts step j's "
                      "queries after the n_0 + … + n_(j−1) keys its cache holds, where root t's step j sits at "
                      "position t + j")
TOKENS_EARLY = ("the loss of steps j ≥ 1 fed x_(t+j), one token early: root t's step j reads x_(t+j+1), the "
                "token after the position t + j it sits at (tokens[:, j + 1:])")
GRADIENT_HINT = ("the head learns through the whole unroll: step j's input is step j − 1's predicted feature, "
                 "with its gradient, so a step's loss also trains the steps before it.",
                 "nothing between the steps is detached (no .detach(), no torch.no_grad()); only the target's "
                 "features and logits are constants")


def eagle_1(head, features, tokens, target_logits, steps: int, feature_weight: float, token_weight: float):
    """EAGLE-1's loss by its own definition (``steps`` is 1): ``eagle_loss`` of
    ``feature_draft_step``'s forward over the pairs ``(f_t, x_{t+1})``."""
    predicted, logits = feature_draft_step(head, features[:, :-1], tokens[:, 1:], None)
    return eagle_loss(predicted, features[:, 1:], logits, target_logits[:, 1:], feature_weight, token_weight)


def reference(setting: Unroll) -> tuple[float, Gradients, dict[str, torch.Tensor]]:
    """The expected ``(loss, {own parameter: gradient}, own weights after one Adam step)``,
    through the check's own steps."""
    value, grads, _, weights = setting.run(eagle_1 if setting.steps == 1 else unrolled_eagle_loss)
    return float(value), grads, weights


def value_gradients_and_step(check: CheckRun, unrolled: Unrolled) -> None:
    setting, steps = unrolled.setting, unrolled.setting.steps
    value, gradients, weights = reference(setting)

    def candidates() -> list[tuple[str, object]]:
        if steps == 1:
            return []
        before = reference(dataclasses.replace(setting, steps=steps - 1))[0]
        return [("the last step's loss alone, where the mean over the steps is meant", steps * value - (steps - 1) * before),
                (POSITIONS_LEFT_OUT, without_positions(setting)), (TOKENS_EARLY, tokens_one_early(setting))]

    formula = "EAGLE-1's loss, eagle_loss of feature_draft_step's forward," if steps == 1 else "the reference"
    right = loss_suite.require_value(check, unrolled.value, value, TOLERANCE, HINT, setting.what(), candidates,
                                     source=formula)
    # a wrong value makes wrong gradients whatever is detached: the value's hint is then the one to follow
    follows = "" if right else " (the value is wrong too: its gradients follow it)"
    gap = loss_suite.largest_gap(unrolled.gradients, gradients)
    check.require("gradients of the head's parameters", gap <= GRADIENT_TOLERANCE,
                  f"the gradients of the head's parameters differ from the reference's by up to {gap:.3g}{follows}",
                  GRADIENT_HINT if right else HINT, case=setting.what())
    gap = loss_suite.largest_gap(unrolled.weights, weights)
    check.require("one Adam step gives the reference's weights", gap <= GRADIENT_TOLERANCE,
                  f"after one Adam step (lr {setting.lr}) from this loss the head's weights differ from the reference's "
                  f"by up to {gap:.3g}{follows}", GRADIENT_HINT if right else HINT, case=setting.what())


class _DecoderWithoutPositions:
    """A head whose decoder is called without ``position_ids``: the decoder then places the
    queries after the keys its cache holds."""

    def __init__(self, head):
        self._head = head

    def __getattr__(self, name):
        return getattr(self._head, name)

    def decoder(self, **kwargs):
        return self._head.decoder(**{**kwargs, "position_ids": None})


@torch.no_grad()
def without_positions(setting: Unroll) -> float:
    """The reference's loss with ``position_ids`` left out of every step's forward."""
    given = setting.given
    return float(unrolled_eagle_loss(_DecoderWithoutPositions(setting.head), given["features"], given["tokens"],
                                     given["target_logits"], setting.steps, setting.feature_weight,
                                     setting.token_weight))


class _TokensOneEarly:
    """A head whose steps ``j ≥ 1`` embed ``x_(t+j)`` in place of ``x_(t+j+1)``: the reference
    calls ``embed`` once per step, in order, so the call count is the step."""

    def __init__(self, head, tokens):
        self._head, self._tokens, self._step = head, tokens, 0

    def __getattr__(self, name):
        return getattr(self._head, name)

    def embed(self, given):
        step, self._step = self._step, self._step + 1
        return self._head.embed(given if step == 0 else self._tokens[:, step:step + given.shape[1]])


@torch.no_grad()
def tokens_one_early(setting: Unroll) -> float:
    """The reference's loss with steps ``j ≥ 1`` fed the token one position early."""
    given = setting.given
    return float(unrolled_eagle_loss(_TokensOneEarly(setting.head, given["tokens"]), given["features"],
                                     given["tokens"], given["target_logits"], setting.steps, setting.feature_weight,
                                     setting.token_weight))
