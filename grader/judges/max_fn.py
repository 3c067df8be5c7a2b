"""The max_fn check's expected values: ``norm(max(0, x))`` in float64, and its comparisons."""
import torch

from grader.checks.harness import CheckRun


def expected(x: torch.Tensor) -> torch.Tensor:
    """The exact answer, in float64 on the CPU."""
    positive = x.double().cpu().clamp(min=0)
    total = positive.sum(-1, keepdim=True)
    return positive / torch.where(total > 0, total, 1.0) + 0.0  # + 0.0 turns −0.0 into 0.0


def compare(check: CheckRun, prop: str, inputs, outputs, hint: str) -> None:
    """Require every output to equal ``expected`` of its input; show the worst entries."""
    for x, out in zip(inputs, outputs):
        want = expected(x).flatten()
        got = out.detach().double().cpu().flatten()
        tolerance = 1e-12 if x.dtype == torch.float64 else 1e-6
        error = (got - want).abs().nan_to_num(nan=float("inf"))
        if error.max() <= tolerance:
            continue
        rows = [["index", "yours", "expected"]]
        for flat in error.argsort(descending=True)[:5].tolist():
            if error[flat] > tolerance:
                index = [int(i) for i in torch.unravel_index(torch.tensor(flat), x.shape)]
                rows.append([str(index), f"{got[flat]:.6g}", f"{want[flat]:.6g}"])
        found = "returned NaN" if torch.isnan(got).any() else f"differs by up to {error.max():.3g}"
        check.require(prop, False, f"{found} on an input of shape {list(x.shape)}", hint, rows)
        return
    check.require(prop, True, "")
