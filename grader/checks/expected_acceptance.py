"""Check `expected_acceptance`: α = Σ min(p, q) over the last dim on hand-made rows (equal,
disjoint, one-hot, skewed and flat, any leading dims), equal to 1 − TV(p, q) to 1e-12 (the
decider's alone: grader/judges/expected_acceptance.py), and symmetric in p and q."""
import torch

from grader.checks.harness import CheckRun
from grader.judged.verifiers import ACCEPTANCE_HINT as HINT
from grader.judged.verifiers import ACCEPTANCE_TOLERANCE as TOLERANCE
from grader.judged.verifiers import Alphas

VOCAB = 5


def hand_made_rows() -> tuple[torch.Tensor, torch.Tensor]:
    """``(p, q)``, both ``[6, 5]`` float64: equal rows (α = 1), disjoint supports (α = 0), a
    one-hot target, a one-hot drafter, a skewed pair and a flat one."""
    p = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.0],
                      [0.5, 0.5, 0.0, 0.0, 0.0],
                      [0.0, 0.0, 1.0, 0.0, 0.0],
                      [0.05, 0.15, 0.6, 0.1, 0.1],
                      [0.7, 0.1, 0.1, 0.05, 0.05],
                      [0.2, 0.2, 0.2, 0.2, 0.2]], dtype=torch.float64)
    q = torch.tensor([[0.1, 0.2, 0.3, 0.4, 0.0],
                      [0.0, 0.0, 0.25, 0.25, 0.5],
                      [0.3, 0.1, 0.2, 0.2, 0.2],
                      [0.0, 0.0, 0.0, 1.0, 0.0],
                      [0.05, 0.05, 0.1, 0.1, 0.7],
                      [0.25, 0.15, 0.2, 0.22, 0.18]], dtype=torch.float64)
    return p, q


def random_rows(check: CheckRun, shape: tuple) -> tuple[torch.Tensor, torch.Tensor]:
    generator = check.generator("rows", shape)
    p, q = (2 * torch.randn((2,) + shape + (VOCAB,), generator=generator, dtype=torch.float64)).softmax(-1)
    return p, q


def run(check: CheckRun) -> None:
    alpha_fn = check.function("expected_acceptance")
    cases = [("hand-made rows [6, 5]",) + hand_made_rows(),
             ("random rows [8, 5]",) + random_rows(check, (8,)),
             ("random rows [2, 3, 5] (leading dims)",) + random_rows(check, (2, 3)),
             ("one row [5]",) + random_rows(check, ())]
    for name, p, q in cases:
        what = f"on {name}"
        alpha = check.call(alpha_fn, p, q, what=what)
        if not isinstance(alpha, torch.Tensor) or tuple(alpha.shape) != tuple(p.shape[:-1]):
            got = f"shape {list(alpha.shape)}" if isinstance(alpha, torch.Tensor) else type(alpha).__name__
            check.fail("output shape", f"returned {got} {what}; expected a tensor of shape {list(p.shape[:-1])}: "
                       "one α per position, the last dim summed away", HINT)
        alpha = alpha.detach().cpu().double()
        check.judge("compare", Alphas(name, p, q, alpha, what))
        swapped = check.call(alpha_fn, q, p, what=f"{what}, p and q swapped")
        check.require("symmetric in p and q", isinstance(swapped, torch.Tensor)
                      and swapped.shape == alpha.shape and torch.allclose(swapped.double().cpu(), alpha,
                                                                         rtol=0, atol=TOLERANCE),
                      f"expected_acceptance(q, p) differs from expected_acceptance(p, q) {what}: "
                      "Σ min(p, q) does not depend on which is the target", HINT, case=name)
