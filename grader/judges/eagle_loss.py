"""The eagle_loss check's expected values, from the formulas.

With ``N`` positions and ``E`` feature elements, ``L = w_f · mean smoothL1(ŷ − y) + w_t · (1/N) Σ_n
−Σ_x p log q``; the closed forms of its gradients are ``∂L/∂ŷ = w_f · clamp(ŷ − y, −1, 1) / E``
(smooth L1 with β = 1: the difference where it is below 1, its sign beyond) and
``∂L/∂z = w_t · (q − p) / N`` for the head's logits ``z``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from grader.judges import loss_suite

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Losses

TOLERANCE = 1e-10  # float64
HINT = ("L_feature is smooth L1 (β = 1) between the head's features and the target's, averaged over every "
        "element; L_token is the cross-entropy −Σ p log q of the head's distribution q against the target's p, "
        "summed over the vocabulary and averaged over the positions; the loss is feature_weight · L_feature + "
        "token_weight · L_token.",
        "torch.nn.functional.smooth_l1_loss(predicted, features.detach()); p = target_logits.detach().softmax(-1); "
        "−(p * head_logits.log_softmax(-1)).sum(-1).mean()")


def expected(given: dict, feature_weight: float, token_weight: float, mistake: str = "") -> tuple[float, dict]:
    """The loss and the gradients of the head's features and logits, in closed form; with
    ``mistake`` ("mse", "hard labels", "vocabulary mean", "class dim") the loss that mistake gives."""
    diff = given["predicted"] - given["features"]
    smooth = torch.where(diff.abs() < 1, 0.5 * diff**2, diff.abs() - 0.5).mean()
    p, log_q = given["target_logits"].softmax(-1), given["head_logits"].log_softmax(-1)
    if mistake == "hard labels":
        p = torch.nn.functional.one_hot(p.argmax(-1), p.shape[-1]).double()
    positions, vocab = p.shape[0] * p.shape[1], p.shape[-1]
    feature = (diff**2).mean() if mistake == "mse" else smooth
    token = -(p * log_q).sum(-1).mean() / (vocab if mistake == "vocabulary mean" else 1)
    if mistake == "class dim":  # cross_entropy(head_logits, p) on [B, T, V] takes dim 1, the positions, as classes
        token = -(p * given["head_logits"].log_softmax(1)).sum(1).mean()
    value = feature_weight * feature + token_weight * token
    return float(value), {"predicted": feature_weight * diff.clamp(-1, 1) / diff.numel(),
                          "head_logits": token_weight * (log_q.exp() - p) / positions}


MISTAKES = {"mse": "the mean squared error where smooth L1 is meant",
            "hard labels": "the cross-entropy against the target's argmax token, where its whole distribution p is meant",
            "vocabulary mean": "the cross-entropy averaged over the vocabulary where its sum is meant",
            "class dim": ("the cross-entropy over dim 1, the positions (torch.nn.functional.cross_entropy takes "
                          "dim 1 as the classes: flatten the logits to [B · T, V] first), where the vocabulary is "
                          "meant")}


def value_and_gradients(check: CheckRun, losses: Losses) -> None:
    given, weights = losses.given, (losses.feature_weight, losses.token_weight)
    value, gradients = expected(given, *weights)
    loss_suite.require_value(check, losses.value, value, TOLERANCE, HINT, losses.case, lambda: [
        (what_it_is, expected(given, *weights, mistake)[0]) for mistake, what_it_is in MISTAKES.items()])
    for name, closed in gradients.items():  # no gradient: a zero weight
        gap = loss_suite.gap(losses.gradients[name], closed)
        check.require(f"gradient of {name}", gap <= 1e-9,
                      f"the gradient that reached {name} differs from the closed form by {gap:.3g}", HINT,
                      case=losses.case)
