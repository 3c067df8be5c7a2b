"""Lesson 1 — the residual distribution ``max_fn``.

When the verifier rejects a draft at position ``i``, the token it emits instead comes from
the residual ``norm(max(0, p_i − q_i))``: the part of the target's mass that the drafter
proposes too rarely. Exercise ``max_fn``: write it, then run ``grader check max_fn``.
"""
import torch

__all__ = ["max_fn"]


def max_fn(x: torch.Tensor) -> torch.Tensor:
    """``norm(max(0, x))`` over the last dim: x ``[..., V]`` -> ``[..., V]``.

    - negative entries become 0, then every row is divided by its sum, so that it sums to 1;
    - any leading dims (``[V]``, ``[k, V]``, ``[B, k, V]``); the dtype and device of ``x`` are kept;
    - a row with no positive entry (``p == q`` at that position) gives all zeros: no NaN and
      no exception. Exact code never samples from such a row, because a rejection there
      has probability ``1 − Σ min(p, q) = 0``, but a vectorised verifier computes every
      row's residual before it knows where it stops, so the row must not poison the rest.

    Hint: ``x.clamp(min=0)``, then ``.sum(dim=-1, keepdim=True)``, and ``torch.where`` to
    divide only where that sum is positive. No ε in the denominator: rows would no longer
    sum to 1.
    """
    # BEGIN SOLUTION
    positive = x.clamp(min=0)
    total = positive.sum(dim=-1, keepdim=True)
    # where the total is 0 every entry is 0 too, so dividing by 1 there keeps the zeros
    return positive / torch.where(total > 0, total, torch.ones_like(total))
    # LESSON
    # raise NotImplementedError
    # END SOLUTION
