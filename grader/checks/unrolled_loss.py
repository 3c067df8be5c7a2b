"""Check `unrolled_eagle_loss` (EAGLE-3's training-time test) on the tiny target and its
feature head (the eagle_generate check's), float64: for several (steps, weights), the loss
and the gradients of the head's own parameters against the reference's on the same
windows (steps = 1 is EAGLE-1: ``eagle_loss`` of ``feature_draft_step``'s forward), no
gradient into the target's features or logits, and the head's weights after one Adam step
from that gradient. The expected values are the decider's alone
(grader/judges/unrolled_loss.py)."""
import copy
import functools
import torch

from grader.checks import loss_suite
from grader.checks.eagle_generate import models
from grader.checks.harness import CheckRun
from grader.judged.losses import Unroll, Unrolled

WINDOWS = (2, 6)  # B rows of T tokens
CASES = [(1, 1.0, 1.0), (2, 1.0, 1.0), (3, 0.5, 2.0), (5, 1.0, 0.0)]  # (steps, feature_weight, token_weight)
LR = 1e-2  # the Adam step's


def windows(check: CheckRun, target) -> dict[str, torch.Tensor]:
    """Random windows ``tokens`` ``[B, T]`` and the target's ``features`` ``[B, T, d]`` and
    ``target_logits`` ``[B, T, V]`` over them."""
    tokens = torch.randint(0, target.config.vocab_size, WINDOWS, generator=check.generator("windows"))
    with torch.no_grad():
        out = target(tokens, output_hidden_states=True)
    return {"features": out.hidden_states[-1], "tokens": tokens, "target_logits": out.logits}


def trainable(head):
    """A copy of ``head`` whose own parameters alone require gradients (the borrowed
    embedding and LM head are the target's)."""
    head = copy.deepcopy(head).requires_grad_(False)
    for param in head.own_parameters():
        param.requires_grad_(True)
    return head


def loss_and_step(loss_fn, head, given: dict, steps: int, feature_weight: float, token_weight: float):
    """``loss_fn`` on a trainable copy of ``head`` and leaf copies of the target's tensors:
    ``(loss, {own parameter: gradient}, {input: gradient}, own weights after one Adam step)``;
    after a loss that cannot be differentiated, only the loss."""
    head = trainable(head)
    loss, teacher = loss_suite.loss_and_gradients(functools.partial(loss_fn, head), given, steps=steps,
                                                  feature_weight=feature_weight, token_weight=token_weight)
    if not teacher:
        return loss, {}, {}, {}
    own = dict(head.named_parameters())
    grads = {name: own[name].grad for name in head.own_state_dict()}
    torch.optim.Adam(head.own_parameters(), lr=LR).step()
    return loss, grads, teacher, {name: value.detach() for name, value in head.own_state_dict().items()}


def run(check: CheckRun) -> None:
    loss_fn = check.function("unrolled_eagle_loss")
    target, head = models()
    given = windows(check, target)
    for steps, feature_weight, token_weight in CASES:
        setting = Unroll(head, given, steps, feature_weight, token_weight, LR, loss_and_step)
        value, grads, teacher, stepped = check.call(loss_and_step, loss_fn, head, given, steps, feature_weight,
                                                    token_weight, what=f"({setting.what()})")
        loss_suite.scalar(check, value, f"({setting.what()})",
                          "a 0-dim tensor that requires grad through the head's parameters", differentiable=bool(grads))
        check.judge("value_gradients_and_step", Unrolled(setting, float(value), grads, stepped))
        loss_suite.teacher_detached(check, teacher, setting.what(), head_reads_features=True)
