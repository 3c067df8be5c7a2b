"""Check `distillation_loss`: for every kind (forward KL, reverse KL, JSD, total variation),
the value on hand-made logits against its formula, the gradient that reaches the drafter's
logits against its closed form, no gradient into the target's logits, a temperature, any
leading dims, and a clear error for an unknown kind.

The closed forms, with ``p = softmax(t / T)``, ``q = softmax(z / T)`` and the loss the mean
over ``N`` positions, are ``∂/∂z = q ⊙ (a − Σ q a) / (T N)`` for the drafter's ``a = ∂/∂q``:
``a = −p / q`` (forward KL; the product is ``(q − p) / (T N)``), ``a = log q − log p``
(reverse KL), ``a = ½ log(q / m)`` (JSD, ``m = (p + q) / 2``), ``a = ½ sign(q − p)`` (TV).
``tests/test_distill.py`` checks them against autograd of the formulas.
"""
import math

import torch

from grader.checks.harness import CheckRun

KINDS = ("forward_kl", "reverse_kl", "jsd", "total_variation")
TOLERANCE = 1e-10  # float64: a right loss agrees to rounding (about 1e-15)
KIND_HINTS = {
    "forward_kl": "forward KL is KL(p‖q) = Σ p (log p − log q), p the target's (the teacher's) distribution.",
    "reverse_kl": "reverse KL is KL(q‖p) = Σ q (log q − log p), q the drafter's (the student's) distribution.",
    "jsd": "the JSD is ½ KL(p‖m) + ½ KL(q‖m) with m = (p + q) / 2 (log m = logaddexp(log p, log q) − log 2).",
    "total_variation": "total variation is ½ Σ |p − q|, with the ½: then α = Σ min(p, q) = 1 − TV exactly.",
}
COMMON_HINT = ("Work from log-probabilities, log_softmax(logits / temperature, dim=-1), never from raw logits "
               "(logits are log-probabilities only up to a constant per row), and average over positions.")
DETACH_HINT = ("the target is the teacher: take its side from target_logits.detach(), so that a training "
               "step never sends gradient into the target (it would train the target, or waste a backward "
               "through it).")


def hand_made_logits() -> tuple[torch.Tensor, torch.Tensor]:
    """``(target_logits, draft_logits)`` ``[4, 5]`` float64, rows shifted by constants (so that
    logits and log-probabilities differ) and with no tie between p and q (TV's gradient)."""
    target = torch.tensor([[2.0, 1.0, 0.0, -1.0, 0.5],
                           [0.3, 0.2, 3.0, -2.0, 1.0],
                           [-1.0, 4.0, 0.0, 0.1, -0.5],
                           [1.5, 1.4, 1.3, 1.2, -3.0]], dtype=torch.float64)
    draft = torch.tensor([[1.0, 2.0, 0.5, -0.5, 0.0],
                          [0.0, 1.0, 2.0, -1.0, 0.7],
                          [0.5, 2.5, 1.0, -1.0, 0.3],
                          [3.0, 0.0, 1.0, 0.5, -1.0]], dtype=torch.float64)
    return target + torch.tensor([[3.0], [-2.0], [7.0], [0.5]], dtype=torch.float64), draft - 4.0


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
    """What a wrong value equals, when it equals the formula with a usual mistake ("" if none):
    another kind (KL's directions swapped), a sum over positions, no temperature, raw logits
    taken for log-probabilities, twice the value."""
    log_p, log_q = log_probabilities(target_logits, temperature), log_probabilities(draft_logits, temperature)
    positions = math.prod(log_p.shape[:-1])
    right = float(per_position(log_p, log_q, kind).mean())
    swapped = {"forward_kl": "p and q swapped: KL(q‖p) is the reverse KL",
               "reverse_kl": "p and q swapped: KL(p‖q) is the forward KL"}.get(kind, "")
    candidates = [(float(per_position(log_p, log_q, other).mean()),
                   f"the value of {other}" + (f" ({swapped})" if swapped and "kl" in other else ""))
                  for other in KINDS if other != kind]
    candidates += [(right * positions, f"the formula summed over the {positions} positions, not averaged"),
                   (float(per_position(target_logits / temperature, draft_logits / temperature, kind).mean()),
                    "the formula on raw logits: they are log-probabilities only after log_softmax"),
                   (2 * right, "twice the formula" + (": total variation has a ½ in front"
                                                      if kind == "total_variation" else ""))]
    if temperature != 1.0:
        candidates.append((float(per_position(log_probabilities(target_logits, 1.0),
                                              log_probabilities(draft_logits, 1.0), kind).mean()),
                           "the formula at temperature 1: both logits must be divided by the temperature"))
    return next((f"; yours equals {what}" for expected, what in candidates
                 if abs(value - expected) <= 1e-9 * max(1.0, abs(expected))), "")


def expected_gradient(target_logits, draft_logits, kind: str, temperature: float) -> torch.Tensor:
    """The closed-form gradient of the mean loss with respect to ``draft_logits``."""
    p = (target_logits / temperature).softmax(-1)
    q = (draft_logits / temperature).softmax(-1)
    a = {"forward_kl": -p / q, "reverse_kl": q.log() - p.log(), "jsd": 0.5 * (2 * q / (p + q)).log(),
         "total_variation": 0.5 * torch.sign(q - p)}[kind]
    positions = math.prod(q.shape[:-1])
    return q * (a - (q * a).sum(-1, keepdim=True)) / (temperature * positions)


def loss_and_gradients(loss_fn, target_logits, draft_logits, kind: str, temperature: float):
    """Runs ``loss_fn`` on leaf copies of both logits and backpropagates: ``(loss, gradient of
    the draft logits, gradient of the target logits)``, a gradient ``None`` where none arrived."""
    target = target_logits.clone().requires_grad_(True)
    draft = draft_logits.clone().requires_grad_(True)
    loss = loss_fn(target, draft, kind, temperature=temperature)
    if not (isinstance(loss, torch.Tensor) and loss.dim() == 0 and loss.requires_grad):
        return (loss.detach() if isinstance(loss, torch.Tensor) else loss), None, None
    loss.backward()
    return loss.detach(), draft.grad, target.grad


def unknown_kind_error(loss_fn, target_logits, draft_logits) -> tuple[str, str] | None:
    """(exception type, message) of ``loss_fn`` on the kind "kl", or None if it returned."""
    try:
        loss_fn(target_logits, draft_logits, "kl")
    except Exception as exc:  # the learner's code: any exception is what it answered
        return type(exc).__name__, str(exc)
    return None


def run(check: CheckRun) -> None:
    loss_fn = check.function("distillation_loss")
    target, draft = hand_made_logits()
    generator = check.generator("leading dims")
    wide_target, wide_draft = 2 * torch.randn((2, 2, 3, 5), generator=generator, dtype=torch.float64)
    for kind in KINDS:
        hint = KIND_HINTS[kind] + " " + COMMON_HINT
        for name, t, d, temperature in (("hand-made [4, 5]", target, draft, 1.0),
                                        ("hand-made [4, 5], temperature 0.5", target, draft, 0.5),
                                        ("random [2, 3, 5] (leading dims)", wide_target, wide_draft, 1.0)):
            what = f"(kind {kind!r}, {name})"
            value = check.call(loss_fn, t, d, kind, temperature=temperature, what=what)
            if not (isinstance(value, torch.Tensor) and value.dim() == 0):
                got = f"shape {list(value.shape)}" if isinstance(value, torch.Tensor) else type(value).__name__
                check.fail("a scalar loss", f"returned {got} {what}; expected a 0-dim tensor, the mean "
                           "over positions", "average the per-position divergence with .mean()")
            expected = float(expected_value(t, d, kind, temperature))
            wrong = abs(float(value) - expected) > TOLERANCE
            mistake = named_mistake(float(value), t, d, kind, temperature) if wrong else ""
            check.require(f"value ({kind}, {name})", not wrong,
                          f"gave {float(value):.10f} {what}; the formula gives {expected:.10f}{mistake}", hint)
        loss, draft_grad, target_grad = check.call(loss_and_gradients, loss_fn, target, draft, kind, 1.0,
                                                   what=f"(kind {kind!r}, backward)")
        expected = expected_gradient(target, draft, kind, 1.0)
        if draft_grad is None:
            check.require(f"gradient of the drafter's logits ({kind})", False,
                          f"no gradient reached draft_logits (kind {kind!r}): the loss must be a "
                          "differentiable function of them", hint)
        else:
            gap = float((draft_grad.double() - expected).abs().max())
            table = [["position", "your gradient", "closed form"]] + [
                [str(i), str([round(x, 5) for x in g]), str([round(x, 5) for x in e])]
                for i, (g, e) in enumerate(zip(draft_grad.tolist(), expected.tolist()))]
            check.require(f"gradient of the drafter's logits ({kind})", gap <= 1e-9,
                          f"the gradient that reached draft_logits differs from the closed form by "
                          f"{gap:.3g} (kind {kind!r})", hint, table)
        leaked = target_grad is not None and bool(target_grad.abs().max() > 0)
        check.require(f"no gradient into the target's logits ({kind})", not leaked,
                      f"a gradient of size {float(target_grad.abs().max()) if leaked else 0:.3g} reached "
                      f"target_logits (kind {kind!r})", DETACH_HINT)
    error = check.call(unknown_kind_error, loss_fn, target, draft, what="(kind 'kl')")
    clear = error is not None and error[0] == "ValueError" and all(k in error[1] for k in KINDS)
    check.require("an unknown kind is a ValueError naming the kinds", clear,
                  f"kind 'kl' {'returned a value' if error is None else f'raised {error[0]}: {error[1][:120]}'}; "
                  f"expected a ValueError whose message names the kinds {', '.join(KINDS)}",
                  "check kind against KINDS first and raise ValueError(f\"unknown kind {kind!r}; expected one "
                  "of ...\").")
