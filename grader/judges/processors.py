"""The processors check's expected values: the reference processors' distributions."""
import torch

from grader.checks.harness import CheckRun
from solutions import sampling as reference


def compare(check: CheckRun, label: str, name: str, kwargs: dict, logits: torch.Tensor,
            probs: torch.Tensor, hint: str) -> None:
    """Require ``probs`` (float64) to be the reference ``name(**kwargs)``'s distribution of
    ``logits`` to 1e-5; show the worst entries."""
    expected = getattr(reference, name)(**kwargs)(logits)
    error = (probs - expected).abs()
    rows = [["row", "token", "yours", "expected"]]
    for flat in error.flatten().argsort(descending=True)[:5].tolist():
        r, t = divmod(flat, expected.shape[-1])
        if error[r, t] > 1e-5:
            rows.append([str(r), str(t), f"{probs[r, t]:.4f}", f"{expected[r, t]:.4f}"])
    check.require(f"{label} distribution", len(rows) == 1,
                  f"differs from the exact distribution by up to {error.max():.4f}", hint, rows)
