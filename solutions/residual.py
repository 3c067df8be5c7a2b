"""Lesson 1 — the residual distribution used after a rejection."""
import torch


def max_fn(x: torch.Tensor) -> torch.Tensor:
    """``norm(max(0, x))`` over the last dim: x ``[..., V]`` -> ``[..., V]``, same dtype/device.

    After a draft is rejected, the correction token is drawn from ``max_fn(p - q)``: the
    part of the target's mass the drafter under-proposed. A row with no positive entry
    (``p == q`` there) returns all zeros instead of NaN. Exact code never samples from
    such a row: a rejection at that position has probability ``1 − Σ min(p, q) = 0``.
    """
    positive = x.clamp(min=0)
    total = positive.sum(dim=-1, keepdim=True)
    # where the total is 0 every entry is 0 too, so dividing by 1 there keeps the zeros
    return positive / torch.where(total > 0, total, torch.ones_like(total))
