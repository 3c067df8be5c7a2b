"""Check `eagle_loss`: on random float64 tensors (features of both sizes, so that smooth L1's
quadratic and linear parts both count), the value against its formula and the gradients
that reach the head's features and logits against their closed forms (the decider's alone:
grader/judges/eagle_loss.py), the two weights, and no gradient into the target's side."""
import torch

from grader.checks import loss_suite
from grader.checks.harness import CheckRun
from grader.judged.losses import Losses

SHAPE = (2, 3, 4, 5)  # B, T, d, V
WEIGHTS = [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (1.0, 0.0)]  # (feature_weight, token_weight)


def inputs(check: CheckRun) -> dict[str, torch.Tensor]:
    """predicted and features ``[B, T, d]`` whose differences straddle smooth L1's β = 1;
    head_logits and target_logits ``[B, T, V]``."""
    generator = check.generator("inputs")
    batch, positions, width, vocab = SHAPE

    def draw(*shape, scale):
        return scale * torch.randn(shape, generator=generator, dtype=torch.float64)

    features = draw(batch, positions, width, scale=1.0)
    return {"predicted": features + draw(batch, positions, width, scale=1.2), "features": features,
            "head_logits": draw(batch, positions, vocab, scale=2.0),
            "target_logits": draw(batch, positions, vocab, scale=2.0) + 3.0}


def run(check: CheckRun) -> None:
    loss_fn = check.function("eagle_loss")
    given = inputs(check)
    for feature_weight, token_weight in WEIGHTS:
        what = f"feature_weight={feature_weight}, token_weight={token_weight}"
        value, grads = check.call(loss_suite.loss_and_gradients, loss_fn, given, feature_weight=feature_weight,
                                  token_weight=token_weight, what=f"({what})")
        loss_suite.scalar(check, value, f"({what})", "a 0-dim tensor that requires grad")
        check.judge("value_and_gradients", Losses(given, feature_weight, token_weight, float(value),
                                                  {name: grads.get(name) for name in ("predicted", "head_logits")},
                                                  what))
        loss_suite.teacher_detached(check, grads, what)
