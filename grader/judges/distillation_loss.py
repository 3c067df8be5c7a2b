"""The distillation_loss check's expected values: each kind's value by its textbook formula,
what a wrong value equals when it is a usual mistake, and the gradient's closed form.

The closed forms, with ``p = softmax(t / T)``, ``q = softmax(z / T)`` and the loss the mean
over ``N`` positions, are ``∂/∂z = q ⊙ (a − Σ q a) / (T N)`` for the drafter's ``a = ∂/∂q``:
``a = −p / q`` (forward KL; the product is ``(q − p) / (T N)``), ``a = log q − log p``
(reverse KL), ``a = ½ log(q / m)`` (JSD, ``m = (p + q) / 2``), ``a = ½ sign(q − p)`` (TV).
``tests/test_distill.py`` checks them against autograd of the formulas.
"""
import math

import torch

from grader.checks.distillation_loss import KINDS
from grader.checks.harness import CheckRun
from grader.judges import mistakes
from grader.verdict import Hint

TOLERANCE = 1e-10  # float64: a right loss agrees to rounding (about 1e-15)


def loss_value(check: CheckRun, kind: str, name: str, target_logits, draft_logits, temperature: float,
               got: float, hint: Hint) -> None:
    """Require the learner's loss ``got`` to equal ``expected_value`` to TOLERANCE; a wrong
    one that equals a usual mistake names it."""
    expected = float(expected_value(target_logits, draft_logits, kind, temperature))
    wrong = abs(got - expected) > TOLERANCE
    mistake = named_mistake(got, target_logits, draft_logits, kind, temperature) if wrong else ""
    check.require("value", not wrong,
                  f"gave {got:.10f} (kind {kind!r}, {name}); the formula gives {expected:.10f}{mistake}", hint,
                  case=f"{kind}, {name}")


def gradient(check: CheckRun, kind: str, target_logits, draft_logits, draft_grad, hint: Hint) -> None:
    """Require the gradient that reached the drafter's logits (None: none did) to equal
    ``expected_gradient`` at temperature 1, to 1e-9."""
    if draft_grad is None:
        check.require("gradient of the drafter's logits", False,
                      f"no gradient reached draft_logits (kind {kind!r}): the loss must be a "
                      "differentiable function of them", hint, case=kind)
        return
    expected = expected_gradient(target_logits, draft_logits, kind, 1.0)
    gap = float((draft_grad.double() - expected).abs().max())
    table = [["position", "your gradient", "closed form"]] + [
        [str(i), str([round(x, 5) for x in g]), str([round(x, 5) for x in e])]
        for i, (g, e) in enumerate(zip(draft_grad.tolist(), expected.tolist()))]
    check.require("gradient of the drafter's logits", gap <= 1e-9,
                  f"the gradient that reached draft_logits differs from the closed form by "
                  f"{gap:.3g} (kind {kind!r})", hint, table, case=kind)


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


def named_mistake(value: float, target_logits, draft_logits, kind: str, temperature: float) -> str:
    """"; yours equals <mistake>" where a wrong value is the formula with a usual mistake, ""
    otherwise: another kind (KL's directions swapped), a sum over positions, a mean over the
    vocabulary, raw logits taken for log-probabilities, twice the value, the JSD's ``m``
    without its ½, a temperature left out, multiplied in or applied twice."""
    def at(t: float) -> float:
        return float(expected_value(target_logits, draft_logits, kind, t))

    right = at(temperature)
    positions, vocabulary = math.prod(target_logits.shape[:-1]), target_logits.shape[-1]
    swapped = {"forward_kl": "p and q swapped: KL(q‖p) is the reverse KL",
               "reverse_kl": "p and q swapped: KL(p‖q) is the forward KL"}.get(kind, "")
    candidates = [(f"the value of {other}" + (f" ({swapped})" if swapped and "kl" in other else ""),
                   float(expected_value(target_logits, draft_logits, other, temperature)))
                  for other in KINDS if other != kind]
    candidates += [mistakes.sum_for_mean(right, positions, f"the {positions} positions"),
                   mistakes.mean_for_sum(right, vocabulary, "the vocabulary"),
                   ("the formula on raw logits: they are log-probabilities only after log_softmax",
                    float(per_position(target_logits / temperature, draft_logits / temperature, kind).mean())),
                   ("twice the formula" + (": total variation has a ½ in front" if kind == "total_variation" else ""),
                    2 * right)]
    if kind == "jsd":  # KL(p‖p + q) = KL(p‖m) − log 2
        candidates.append(("the JSD with m = p + q: log m is logaddexp(log p, log q) − log 2", right - math.log(2.0)))
    return mistakes.named_mistake(value, right, candidates + mistakes.temperature_mistakes(at, temperature), 1e-9)


def expected_gradient(target_logits, draft_logits, kind: str, temperature: float) -> torch.Tensor:
    """The closed-form gradient of the mean loss with respect to ``draft_logits``."""
    p = (target_logits / temperature).softmax(-1)
    q = (draft_logits / temperature).softmax(-1)
    a = {"forward_kl": -p / q, "reverse_kl": q.log() - p.log(), "jsd": 0.5 * (2 * q / (p + q)).log(),
         "total_variation": 0.5 * torch.sign(q - p)}[kind]
    positions = math.prod(q.shape[:-1])
    return q * (a - (q * a).sum(-1, keepdim=True)) / (temperature * positions)
