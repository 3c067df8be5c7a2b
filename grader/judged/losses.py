"""The training family's judged values (lessons 10 and 11: the loss suite's distillation_loss,
eagle_loss and unrolled_loss, and on_policy_batch, train_drafter and feature_draft): the
one frozen dataclass each judge takes, built by its check, read by its judge.

A procedure both halves run on the same inputs (unrolled_loss's loss and Adam step,
train_drafter's fresh drafter) travels as a field its check fills in, so that the judge runs
the check's own code on the reference without importing the check.
"""
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from grader.verdict import Hint

Gradients = dict[str, torch.Tensor | None]  # by input name; None where no gradient arrived


@dataclass(frozen=True)
class Loss:
    """distillation_loss's judges' argument: the logits (``[..., V]`` float64) a loss of
    ``kind`` was called on at ``temperature`` (``setting`` names them), and what came back: its
    ``value``, or the gradient that reached the drafter's logits (``draft_grad``; None: none
    did)."""
    kind: str
    setting: str
    target_logits: torch.Tensor
    draft_logits: torch.Tensor
    temperature: float
    hint: Hint
    value: float = math.nan
    draft_grad: torch.Tensor | None = None


@dataclass(frozen=True)
class Losses:
    """eagle_loss's judge's argument: the inputs (``inputs``' tensors), the weights, and what
    the learner's loss gave: its value, and the gradients of the head's ``predicted`` and
    ``head_logits`` (None where none arrived)."""
    given: dict[str, torch.Tensor]
    feature_weight: float
    token_weight: float
    value: float
    gradients: Gradients
    case: str


@dataclass(frozen=True)
class Unroll:
    """One setting of unrolled_loss: the head, the target's ``windows``, the steps and the
    weights, the Adam step's ``lr``, and ``step``: the check's ``loss_and_step``, which the
    judge runs on the reference."""
    head: Any
    given: dict[str, torch.Tensor]
    steps: int
    feature_weight: float
    token_weight: float
    lr: float
    step: Callable[..., tuple[Any, Gradients, Gradients, dict[str, torch.Tensor]]]

    def what(self) -> str:
        return f"steps={self.steps}, feature_weight={self.feature_weight}, token_weight={self.token_weight}"

    def run(self, loss_fn: Any) -> tuple[Any, Gradients, Gradients, dict[str, torch.Tensor]]:
        """``loss_and_step`` of ``loss_fn`` in this setting (the judge's, on the reference)."""
        return self.step(loss_fn, self.head, self.given, self.steps, self.feature_weight, self.token_weight)


@dataclass(frozen=True)
class Unrolled:
    """unrolled_loss's judge's argument: a setting and what ``loss_and_step`` gave there: the
    loss, the gradients of the head's own parameters and its weights after one Adam step."""
    setting: Unroll
    value: float
    gradients: Gradients
    weights: dict[str, torch.Tensor]


@dataclass(frozen=True)
class Batch:
    """on_policy_batch's judges' argument: the pair, the prompts ``[B, P]``, and the learner's
    batch on the CPU: ids ``[B, P + length]``, target_logits ``[B, length, V]``, from_target
    ``[B]``."""
    target: Any
    drafter: Any
    prompts: torch.Tensor
    ids: torch.Tensor
    target_logits: torch.Tensor
    from_target: torch.Tensor


@dataclass(frozen=True)
class Setup:
    """train_drafter's settings that its judges replay and measure with; ``fresh_drafter()``
    makes the drafter the check trains, untrained."""
    held_out: tuple[list[int], ...]
    rows_per_held_out: int
    length: int
    prompt_length: int
    steps: int
    batch_size: int
    lr: float
    improve_hint: Hint
    fresh_drafter: Callable[[], Any]


@dataclass(frozen=True)
class Steps:
    """train_drafter's steps judge's argument: the drafter's ``weights`` after one step and
    after three (``{steps: weights}``) of ``kind`` on batches of the one text ``row``
    ``[P + LENGTH]``."""
    target: Any
    row: torch.Tensor
    kind: str
    weights: dict[int, dict[str, torch.Tensor]]
    setup: Setup


@dataclass(frozen=True)
class Trained:
    """train_drafter's improvement judge's argument: a ``drafter`` trained ``setup.steps``
    steps with ``kind`` (``label``: and the data) and the α it reported, ``{step: α}``."""
    target: Any
    drafter: Any
    kind: str
    label: str
    history: dict[int, float]
    setup: Setup


@dataclass(frozen=True)
class Rows:
    """feature_draft's judges' argument: the pairs read (features ``[B, n, d]``, tokens
    ``[B, n]``) and what the step returned, float64; on a tree, ``text`` pairs, then the nodes
    of ``parents``."""
    case: str
    head: Any
    features: torch.Tensor
    tokens: torch.Tensor
    got: tuple[torch.Tensor, ...]
    text: int = 0
    parents: tuple[int, ...] = ()
