"""Check `eagle_loss`: on random float64 tensors (features of both sizes, so that smooth L1's
quadratic and linear parts both count), the value against its formula and the gradients
that reach the head's features and logits against their closed forms (the decider's alone:
grader/judges/eagle_loss.py), the two weights, and no gradient into the target's side."""
import torch

from grader.checks.harness import CheckRun

SHAPE = (2, 3, 4, 5)  # B, T, d, V
WEIGHTS = [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (1.0, 0.0)]  # (feature_weight, token_weight)
DETACH_HINT = ("the target is the teacher: its features and logits are constants of the loss, so no gradient "
               "may reach them.",
               "take features.detach() and target_logits.detach() (or compute p under torch.no_grad())")


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


def loss_and_gradients(loss_fn, given: dict, feature_weight: float, token_weight: float):
    """The learner's loss on leaf copies of ``given``, and the gradient each copy received
    (None where none arrived)."""
    leaves = {name: value.clone().requires_grad_(True) for name, value in given.items()}
    loss = loss_fn(leaves["predicted"], leaves["features"], leaves["head_logits"], leaves["target_logits"],
                   feature_weight=feature_weight, token_weight=token_weight)
    if not (isinstance(loss, torch.Tensor) and loss.dim() == 0 and loss.requires_grad):
        return (loss.detach() if isinstance(loss, torch.Tensor) else loss), {}
    loss.backward()
    return loss.detach(), {name: leaf.grad for name, leaf in leaves.items()}


def run(check: CheckRun) -> None:
    loss_fn = check.function("eagle_loss")
    given = inputs(check)
    for feature_weight, token_weight in WEIGHTS:
        what = f"feature_weight={feature_weight}, token_weight={token_weight}"
        value, grads = check.call(loss_and_gradients, loss_fn, given, feature_weight, token_weight, what=f"({what})")
        if not (isinstance(value, torch.Tensor) and value.dim() == 0):
            got = f"shape {list(value.shape)}" if isinstance(value, torch.Tensor) else type(value).__name__
            check.fail("a scalar loss", f"returned {got} ({what}); expected a 0-dim tensor that requires grad")
        check.judge("value_and_gradients", given, feature_weight, token_weight, float(value),
                    {name: grads.get(name) for name in ("predicted", "head_logits")}, what)
        leaked = [name for name in ("features", "target_logits")
                  if grads.get(name) is not None and bool(grads[name].abs().max() > 0)]
        check.require("no gradient into the target's side", not leaked,
                      f"a gradient reached {' and '.join(leaked)}", DETACH_HINT, case=what)
