"""Check `distillation_loss`: for every kind (forward KL, reverse KL, JSD, total variation),
the value on hand-made logits against its formula, the gradient that reaches the drafter's
logits against its closed form (both the decider's alone: grader/judges/distillation_loss.py),
no gradient into the target's logits, a temperature, any leading dims, and a clear error for
an unknown kind.
"""
import torch

from grader.checks import loss_suite
from grader.checks.harness import CheckRun
from grader.judged.losses import Loss
from grader.verdict import joined
from solutions.distill import KINDS

KIND_HINTS = {
    "forward_kl": "forward KL is KL(p‖q) = Σ p (log p − log q), p the target's (the teacher's) distribution.",
    "reverse_kl": "reverse KL is KL(q‖p) = Σ q (log q − log p), q the drafter's (the student's) distribution.",
    "jsd": ("the JSD is ½ KL(p‖m) + ½ KL(q‖m) with m = (p + q) / 2, the average of the two distributions.",
            "in logs, log m = logaddexp(log p, log q) − log 2: no exp and log round trip."),
    "total_variation": "total variation is ½ Σ |p − q|, with the ½: then α = Σ min(p, q) = 1 − TV exactly.",
}
COMMON_HINT = ("Compare distributions, never raw logits (logits are log-probabilities only up to a "
               "constant per row): both sides at the temperature, the divergence per position, then its "
               "mean over positions.",
               "log_softmax(logits / temperature, dim=-1) for each side, then divergence(log_p, log_q, "
               "kind).mean().")
SCALAR_HINT = ("a loss is one number: the divergence at each position, averaged over the positions.",
               "divergence(log_p, log_q, kind).mean() gives a 0-dim tensor.")
KIND_ERROR_HINT = ("an unknown kind must be refused with a clear error, not answered with some other loss: a typo "
                   "would otherwise train with the wrong objective, silently.",
                   "before computing anything, test kind against KINDS and raise ValueError(f\"unknown kind "
                   "{kind!r}; expected one of ...\").")
DETACH_HINT = ("the target is the teacher: a training step must never send gradient into it (it would "
               "train the target, or waste a backward through it).",
               "take its side from target_logits.detach().")


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
        hint = joined(KIND_HINTS[kind], COMMON_HINT)
        for name, t, d, temperature in (("hand-made [4, 5]", target, draft, 1.0),
                                        ("hand-made [4, 5], temperature 0.5", target, draft, 0.5),
                                        ("random [2, 3, 5] (leading dims)", wide_target, wide_draft, 1.0)):
            what = f"(kind {kind!r}, {name})"
            value = check.call(loss_fn, t, d, kind, temperature=temperature, what=what)
            loss_suite.scalar(check, value, what, "a 0-dim tensor, the mean over positions", SCALAR_HINT)
            check.judge("loss_value", Loss(kind, name, t, d, temperature, hint, value=float(value)))
        _, grads = check.call(loss_suite.loss_and_gradients, loss_fn, {"target_logits": target, "draft_logits": draft},
                              kind, temperature=1.0, what=f"(kind {kind!r}, backward)")
        check.judge("gradient", Loss(kind, "backward", target, draft, 1.0, hint, draft_grad=grads.get("draft_logits")))
        size = float(leak.abs().max()) if (leak := grads.get("target_logits")) is not None else 0.0
        check.require("no gradient into the target's logits", not size > 0,
                      f"a gradient of size {size:.3g} reached target_logits (kind {kind!r})", DETACH_HINT, case=kind)
    error = check.call(unknown_kind_error, loss_fn, target, draft, what="(kind 'kl')")
    clear = error is not None and error[0] == "ValueError" and all(k in error[1] for k in KINDS)
    check.require("an unknown kind is a ValueError naming the kinds", clear,
                  f"kind 'kl' {'returned a value' if error is None else f'raised {error[0]}: {error[1][:120]}'}; "
                  f"expected a ValueError whose message names the kinds {', '.join(KINDS)}", KIND_ERROR_HINT)
