"""The distillation_loss check's expected values: each kind's value by its textbook formula,
what a wrong value equals when it is a usual mistake, and the gradient's closed form.

The closed forms, with ``p = softmax(t / T)``, ``q = softmax(z / T)`` and the loss the mean
over ``N`` positions, are ``∂/∂z = q ⊙ (a − Σ q a) / (T N)`` for the drafter's ``a = ∂/∂q``:
``a = −p / q`` (forward KL; the product is ``(q − p) / (T N)``), ``a = log q − log p``
(reverse KL), ``a = ½ log(q / m)`` (JSD, ``m = (p + q) / 2``), ``a = ½ sign(q − p)`` (TV).
``tests/test_distill.py`` checks them against autograd of the formulas.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from grader.judges import loss_suite, mistakes
from solutions.distill import KINDS

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Loss

TOLERANCE = 1e-10  # float64: a right loss agrees to rounding (about 1e-15)


def loss_value(check: CheckRun, loss: Loss) -> None:
    """Require the learner's loss to equal ``expected_value`` to TOLERANCE; a wrong one that
    equals a usual mistake names it."""
    t, d, kind, temperature = loss.target_logits, loss.draft_logits, loss.kind, loss.temperature
    loss_suite.require_value(check, loss.value, float(expected_value(t, d, kind, temperature)), TOLERANCE, loss.hint,
                             f"{kind}, {loss.setting}", lambda: candidates(t, d, kind, temperature),
                             where=f" (kind {kind!r}, {loss.setting})", named_to=1e-9)


def gradient(check: CheckRun, loss: Loss) -> None:
    """Require the gradient that reached the drafter's logits to equal ``expected_gradient``
    at temperature 1, to 1e-9."""
    if loss.draft_grad is None:
        check.require("gradient of the drafter's logits", False,
                      f"no gradient reached draft_logits (kind {loss.kind!r}): the loss must be a "
                      "differentiable function of them", loss.hint, case=loss.kind)
        return
    expected = expected_gradient(loss.target_logits, loss.draft_logits, loss.kind, 1.0)
    gap = loss_suite.gap(loss.draft_grad, expected)
    table = [["position", "your gradient", "closed form"]] + [
        [str(i), str([round(x, 5) for x in g]), str([round(x, 5) for x in e])]
        for i, (g, e) in enumerate(zip(loss.draft_grad.tolist(), expected.tolist()))]
    check.require("gradient of the drafter's logits", gap <= 1e-9,
                  f"the gradient that reached draft_logits differs from the closed form by "
                  f"{gap:.3g} (kind {loss.kind!r})", loss.hint, table, case=loss.kind)


def expected_value(target_logits, draft_logits, kind: str, temperature: float) -> torch.Tensor:
    """The loss by its textbook formula, from probabilities, in float64."""
    return per_position(log_probabilities(target_logits, temperature),
                        log_probabilities(draft_logits, temperature), kind).mean()


def log_probabilities(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    return (logits / temperature).softmax(-1).log()


def per_position(log_p: torch.Tensor, log_q: torch.Tensor, kind: str) -> torch.Tensor:
    """The divergence of ``kind`` at each position, written with ``p = exp(log_p)`` and
    ``q = exp(log_q)`` (which the named mistakes below feed with other things than logs)."""
    p, q = log_p.exp(), log_q.exp()
    m = (p + q) / 2
    return {
        "forward_kl": (p * (log_p - log_q)).sum(-1),
        "reverse_kl": (q * (log_q - log_p)).sum(-1),
        "jsd": 0.5 * (p * (log_p - m.log())).sum(-1) + 0.5 * (q * (log_q - m.log())).sum(-1),
        "total_variation": 0.5 * (p - q).abs().sum(-1),
    }[kind]


def candidates(target_logits, draft_logits, kind: str, temperature: float) -> list[tuple[str, object]]:
    """The values of usual mistakes: another kind (KL's directions swapped), a sum over
    positions, a mean over the vocabulary, raw logits taken for log-probabilities, twice the
    value, the JSD's ``m`` without its ½, a temperature left out, multiplied in or applied twice."""
    def at(t: float) -> float:
        return float(expected_value(target_logits, draft_logits, kind, t))

    right = at(temperature)
    positions, vocabulary = math.prod(target_logits.shape[:-1]), target_logits.shape[-1]
    swapped = {"forward_kl": "p and q swapped: KL(q‖p) is the reverse KL",
               "reverse_kl": "p and q swapped: KL(p‖q) is the forward KL"}.get(kind, "")
    found: list[tuple[str, object]] = [(f"the value of {other}" + (f" ({swapped})" if swapped and "kl" in other else ""),
              float(expected_value(target_logits, draft_logits, other, temperature)))
             for other in KINDS if other != kind]
    found += [mistakes.sum_for_mean(right, positions, f"the {positions} positions"),
              mistakes.mean_for_sum(right, vocabulary, "the vocabulary"),
              ("the formula on raw logits: they are log-probabilities only after log_softmax",
               float(per_position(target_logits / temperature, draft_logits / temperature, kind).mean())),
              ("twice the formula" + (": total variation has a ½ in front" if kind == "total_variation" else ""),
               2 * right)]
    if kind == "jsd":  # KL(p‖p + q) = KL(p‖m) − log 2
        found.append(("the JSD with m = p + q: log m is logaddexp(log p, log q) − log 2", right - math.log(2.0)))
    return found + mistakes.temperature_mistakes(at, temperature)


def expected_gradient(target_logits, draft_logits, kind: str, temperature: float) -> torch.Tensor:
    """The closed-form gradient of the mean loss with respect to ``draft_logits``."""
    p = (target_logits / temperature).softmax(-1)
    q = (draft_logits / temperature).softmax(-1)
    a = {"forward_kl": -p / q, "reverse_kl": q.log() - p.log(), "jsd": 0.5 * (2 * q / (p + q)).log(),
         "total_variation": 0.5 * torch.sign(q - p)}[kind]
    positions = math.prod(q.shape[:-1])
    return q * (a - (q * a).sum(-1, keepdim=True)) / (temperature * positions)
