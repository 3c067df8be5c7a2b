"""The loss suite's runner half: how the checks of a training loss (distillation_loss,
eagle_loss, unrolled_loss) run the learner's loss and read what it gave.

``loss_and_gradients`` calls a loss on leaf copies of its inputs and backpropagates, so that
the gradient each input received comes back with the value (its name is the one a failure
shows: "`loss_and_gradients` calls `eagle_loss`"); ``scalar`` requires the value to be one
number; ``teacher_detached`` requires that no gradient reached the target's side.
The expected values and gradients, and the usual mistakes a wrong value is named by, are
the judge half's (grader/judges/loss_suite.py).
"""
from collections.abc import Callable, Mapping
from typing import Any

import torch

from grader.checks.harness import CheckRun
from grader.judged.losses import Gradients
from grader.verdict import Hint


DETACH_HINT = ("the target is the teacher: its features and logits are constants of the loss, so no gradient "
               "may reach them.",
               "take features.detach() and target_logits.detach() (or compute p under torch.no_grad())")
# a loss that detaches the teachers it scores against leaks into features alone through the head's input
INPUT_DETACH_HINT = ("features is the teacher and also step 0's input: the head reads them, so a gradient reaches "
                     "them through the head's forward even when eagle_loss detaches its own copy.",
                     "features, target_logits = features.detach(), target_logits.detach() before step 0")


def loss_and_gradients(loss_fn: Callable[..., Any], given: Mapping[str, torch.Tensor], *args: Any,
                       **kwargs: Any) -> tuple[Any, Gradients]:
    """``loss_fn(*leaves, *args, **kwargs)`` on leaf copies of ``given``'s tensors, in its
    order (the floating ones require grad), backpropagated: ``(the loss, detached, {name: the
    gradient that reached it})``, and no gradients when the loss is not a 0-dim tensor that
    requires grad."""
    leaves = {name: value.clone().requires_grad_(value.is_floating_point()) for name, value in given.items()}
    loss = loss_fn(*leaves.values(), *args, **kwargs)
    if not (isinstance(loss, torch.Tensor) and loss.dim() == 0 and loss.requires_grad):
        return (loss.detach() if isinstance(loss, torch.Tensor) else loss), {}
    loss.backward()
    return loss.detach(), {name: leaf.grad for name, leaf in leaves.items()}


def scalar(check: CheckRun, value: Any, what: str, expected: str, hint: Hint = "",
           differentiable: bool = True) -> None:
    """Stop the check unless ``value`` is a 0-dim tensor (and ``differentiable``: a gradient
    came back from it); ``expected`` says what it should be."""
    if not (isinstance(value, torch.Tensor) and value.dim() == 0 and differentiable):
        got = f"shape {list(value.shape)}" if isinstance(value, torch.Tensor) else type(value).__name__
        check.fail("a scalar loss", f"returned {got} {what}; expected {expected}", hint)


def teacher_detached(check: CheckRun, gradients: Gradients, case: str, head_reads_features: bool = False) -> None:
    """No gradient reached the target's ``features`` or ``target_logits``; when the head
    also reads ``features`` (an unroll's step 0), a leak into them alone is its input's."""
    leaked = [name for name in ("features", "target_logits")
              if (grad := gradients.get(name)) is not None and bool(grad.abs().max() > 0)]
    check.require("no gradient into the target's side", not leaked, f"a gradient reached {' and '.join(leaked)}",
                  INPUT_DETACH_HINT if head_reads_features and leaked == ["features"] else DETACH_HINT, case=case)
