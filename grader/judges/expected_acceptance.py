"""The expected_acceptance check's expected values: 1 − TV(p, q) at every position."""
import torch

from grader.checks.expected_acceptance import HINT, TOLERANCE
from grader.checks.harness import CheckRun


def compare(check: CheckRun, name: str, p: torch.Tensor, q: torch.Tensor, alpha: torch.Tensor, what: str) -> None:
    """Require the learner's ``alpha`` (float64, on the CPU) to equal 1 − ½ Σ |p − q| to TOLERANCE."""
    one_minus_tv = 1 - 0.5 * (p - q).abs().sum(-1)
    gap = float((alpha - one_minus_tv).abs().max())
    worst = int((alpha - one_minus_tv).abs().flatten().argmax())
    table = [["position", "your α", "1 − TV(p, q)"]] + [
        [str(i), f"{a:.6f}", f"{e:.6f}"] for i, (a, e) in
        enumerate(zip(alpha.flatten().tolist(), one_minus_tv.flatten().tolist()))][:7]
    check.require(f"α = 1 − TV(p, q) to 1e-12 ({name})", gap <= TOLERANCE,
                  f"α differs from 1 − ½ Σ |p − q| by {gap:.3g} {what} (position {worst})", HINT, table)
