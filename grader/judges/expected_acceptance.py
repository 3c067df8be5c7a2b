"""The expected_acceptance check's expected values: 1 − TV(p, q) at every position, and
what a wrong α equals when it is a usual mistake."""
import torch

from grader.judges import mistakes
from grader.judged.verifiers import ACCEPTANCE_HINT as HINT
from grader.judged.verifiers import ACCEPTANCE_TOLERANCE as TOLERANCE
from grader.judged.verifiers import Alphas, Recorder


def compare(check: Recorder, judged: Alphas) -> None:
    """Require the learner's ``alpha`` (float64, on the CPU) to equal 1 − ½ Σ |p − q| to TOLERANCE."""
    name, p, q, alpha, what = judged.name, judged.p, judged.q, judged.alpha, judged.what
    one_minus_tv = 1 - 0.5 * (p - q).abs().sum(-1)
    gap = float((alpha - one_minus_tv).abs().max())
    worst = int((alpha - one_minus_tv).abs().flatten().argmax())
    table = [["position", "your α", "1 − TV(p, q)"]] + [
        [str(i), f"{a:.6f}", f"{e:.6f}"] for i, (a, e) in
        enumerate(zip(alpha.flatten().tolist(), one_minus_tv.flatten().tolist()))][:7]
    mistake = mistakes.named_mistake(alpha, one_minus_tv, usual_mistakes(p, q), TOLERANCE)
    check.require("α = 1 − TV(p, q) to 1e-12", gap <= TOLERANCE,
                  f"α differs from 1 − ½ Σ |p − q| by {gap:.3g} {what} (position {worst}){mistake}", HINT, table,
                  case=name)


def usual_mistakes(p: torch.Tensor, q: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    """What α is with a usual mistake: total variation itself, total variation without its ½,
    a mean over the vocabulary where the sum is meant."""
    distance = (p - q).abs().sum(-1)
    return [("the total variation ½ Σ |p − q|, which is 1 − α: α is the overlap Σ min(p, q)", 0.5 * distance),
            ("1 − Σ |p − q|: total variation has a ½ in front", 1 - distance),
            mistakes.mean_for_sum(torch.minimum(p, q).sum(-1), p.shape[-1], "the vocabulary")]
