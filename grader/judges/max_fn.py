"""The max_fn check's expected values: ``norm(max(0, x))`` in float64, its comparisons, and
what a wrong output equals when it is a usual mistake."""
import torch

from grader.judges import mistakes
from grader.judged.verifiers import Outputs, Recorder


def expected(x: torch.Tensor) -> torch.Tensor:
    """The exact answer, in float64 on the CPU."""
    positive = x.double().cpu().clamp(min=0)
    total = positive.sum(-1, keepdim=True)
    return positive / torch.where(total > 0, total, 1.0) + 0.0  # + 0.0 turns −0.0 into 0.0


def usual_mistakes(x: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    """What max_fn gives with a usual mistake: the positive part not normalised, normalised
    over the first dim (the axes mixed up), or a softmax of x."""
    positive = x.double().cpu().clamp(min=0)
    total = positive.sum(0, keepdim=True)
    return [("max(0, x) not normalised: each row must then be divided by its sum", positive),
            ("max(0, x) normalised over the first dim, not the last", positive / torch.where(total > 0, total, 1.0)),
            ("softmax(x): max_fn normalises the positive part, with no exponential", x.double().cpu().softmax(-1))]


def compare(check: Recorder, judged: Outputs) -> None:
    """Require every output to equal ``expected`` of its input (``judged.prop`` on its case);
    show the worst entries."""
    prop, hint, case = judged.prop, judged.hint, judged.case
    for x, out in zip(judged.inputs, judged.outputs):
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
        mistake = mistakes.named_mistake(got.view(x.shape), want.view(x.shape), usual_mistakes(x), tolerance)
        check.require(prop, False, f"{found} on an input of shape {list(x.shape)}{mistake}", hint, rows,
                      case=case)
        return
    check.require(prop, True, "", case=case)
