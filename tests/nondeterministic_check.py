"""A check that breaks the replay contract: it draws its input from torch's global generator
without seeding it, so two runs ask for different calls (tests/test_determinism.py)."""
import torch


def run(check) -> None:
    max_fn = check.function("max_fn")
    x = torch.rand(2, 5)  # not check.generator(...), not after check.seed_everything(...)
    y = check.call(max_fn, x - 0.5, what="(an unseeded input)")
    check.require("returns a tensor", isinstance(y, torch.Tensor), f"returned {type(y).__name__}")
