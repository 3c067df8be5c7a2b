"""Check `max_fn`: ``norm(max(0, x))`` over the last dim for any leading dims, the dtype and
device kept, and rows with no positive entry (p == q at a position) giving zeros, not NaN.
The expected values are the decider's alone (grader/judges/max_fn.py)."""
import torch

from grader.checks.harness import CheckRun
from grader.judged.verifiers import Outputs

SHAPES = [(7,), (4, 7), (7, 7), (2, 3, 7), (1, 1, 7)]  # (7, 7): a sum over the wrong dim shows
FORMULA_HINT = ("keep the positive part of every entry, then normalise each row over the last dim "
                "so that it sums to 1; no ε in the denominator: it leaves rows that do not sum to 1.",
                "x.clamp(min=0), then divide by its sum(dim=-1, keepdim=True), which broadcasts "
                "over the row.")
ZERO_ROW_HINT = ("a row with nothing positive has sum 0, and 0 / 0 is NaN: such a row must stay all "
                 "zeros, and a row with a tiny positive mass must still sum to 1. Exact code never "
                 "samples from it: a rejection there has probability 1 − Σ min(p, q) = 0.",
                 "divide by the sum only where it is positive: torch.where(total > 0, total, "
                 "torch.ones_like(total)).")
DTYPE_HINT = ("max_fn must return the input's dtype on the input's device: its output is sampled from "
              "beside the distributions it came from.",
              "use the input's own tensor ops; .float(), .double(), .cpu() or new tensors made "
              "without dtype= and device= change them")
SHAPE_HINT = ("the output has the input's shape: every row normalised where it stands, over the last dim.",
              "reduce with keepdim=True and divide by broadcasting")


def run(check: CheckRun) -> None:
    max_fn = check.function("max_fn")
    # not verifier_rounds.devices(): importing the suite would preload its law judge for max_fn
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        for dtype in (torch.float64, torch.float32):
            where = f"{str(dtype).removeprefix('torch.')} on {device}"
            inputs = [differences(check, shape, dtype, device) for shape in SHAPES]
            outputs = [output(check, max_fn, x, f"x = p − q of shape {list(x.shape)}, {where}")
                       for x in inputs]
            edge = edge_rows(dtype, device)
            edge_output = output(check, max_fn, edge, f"rows with no positive entry, {where}")
            kept = [(y.dtype, y.device) for y in outputs + [edge_output] if (y.dtype, y.device) !=
                    (dtype, edge.device)]
            check.require("dtype and device kept", not kept,
                          f"returned {kept[0][0]} on {kept[0][1]} for {dtype} on {edge.device}"
                          if kept else "", DTYPE_HINT, case=where)
            check.judge("compare", Outputs("norm(max(0, x)) over the last dim", inputs, outputs, FORMULA_HINT, where))
            check.judge("compare", Outputs("rows with no positive entry give zeros", [edge], [edge_output],
                                           ZERO_ROW_HINT, where))


def differences(check: CheckRun, shape: tuple, dtype, device) -> torch.Tensor:
    """``p − q`` for random distributions ``p``, ``q`` of the given shape: what max_fn gets."""
    generator = check.generator("differences", shape, str(dtype))
    p, q = (2 * torch.randn((2,) + shape, generator=generator, dtype=torch.float64)).softmax(-1)
    return (p - q).to(dtype=dtype, device=device)


def edge_rows(dtype, device) -> torch.Tensor:
    """``[6, 4]``: all zeros, all negative, −0.0 and zeros, one tiny positive, p − p, normal."""
    p = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64)
    rows = torch.stack([torch.zeros(4, dtype=torch.float64),
                        torch.tensor([-1.0, -0.5, -2.0, -1e-9], dtype=torch.float64),
                        torch.tensor([-0.0, 0.0, -0.0, -3.0], dtype=torch.float64),
                        torch.tensor([1e-30, -1.0, 0.0, -0.2], dtype=torch.float64),
                        p - p,
                        torch.tensor([0.3, -0.1, 0.05, -0.25], dtype=torch.float64)])
    return rows.to(dtype=dtype, device=device)


def output(check: CheckRun, max_fn, x: torch.Tensor, what: str) -> torch.Tensor:
    out = check.call(max_fn, x, what=f"on {what}")
    if not isinstance(out, torch.Tensor):
        check.fail("output type", f"returned {type(out).__name__} on {what}; expected a tensor")
    if out.shape != x.shape:
        check.fail("output shape", f"returned shape {list(out.shape)} on {what}; expected "
                   f"{list(x.shape)}: the same shape, normalised over the last dim", SHAPE_HINT)
    return out
