"""The unrolled_loss check's expected values: the reference's unroll on the same head and
windows, its gradients and the weights after the check's Adam step; for ``steps = 1``,
EAGLE-1's loss (``eagle_loss`` of ``feature_draft_step``'s forward) itself.

Step ``j``'s loss does not depend on how many steps follow it, so with ``L(s)`` the mean of
the first ``s`` steps' losses, the last step's alone is ``s · L(s) − (s − 1) · L(s − 1)``:
a learner's value equal to it is named."""
import torch

from grader.checks.harness import CheckRun
from grader.checks.unrolled_loss import LR, loss_and_step
from grader.judges import mistakes
from solutions.eagle import eagle_loss, feature_draft_step, unrolled_eagle_loss

TOLERANCE = 1e-10  # the loss, float64
GRADIENT_TOLERANCE = 1e-9
HINT = ("the unroll drafts from every root t as decoding does: step 0 reads the pairs (f_t, x_(t+1)) at "
        "positions t (causal); step j ≥ 1 reads (f̂^(j−1) of root t, x_(t+j+1)) at position t + j and sees "
        "step 0's keys at positions ≤ t and root t's own keys of steps 1 … j, nothing else; each step's "
        "eagle_loss is taken against the target at the positions it predicts (t + j + 1, while it exists), "
        "and the loss is their mean over the steps.",
        "one DynamicCache for all the steps; step j's mask over [step 0 | … | step j] is [tril | I | … | I] "
        "(attention_bias of root ≥ arange(n_0), then root == arange(n_i)), position_ids root + j; "
        "feature_draft_step(head, predicted[:, :n_j], tokens[:, j + 1:], cache, mask, positions), then "
        "eagle_loss(predicted, features[:, j + 1:], logits, target_logits[:, j + 1:], …)")
POSITIONS_LEFT_OUT = ("the loss of steps whose forward is given no position_ids: the decoder then puts step j's "
                      "queries after the n_0 + … + n_(j−1) keys its cache holds, where root t's step j sits at "
                      "position t + j")
TOKENS_EARLY = ("the loss of steps j ≥ 1 fed x_(t+j), one token early: root t's step j reads x_(t+j+1), the "
                "token after the position t + j it sits at (tokens[:, j + 1:])")
GRADIENT_HINT = ("the head learns through the whole unroll: step j's input is step j − 1's predicted feature, "
                 "with its gradient, so a step's loss also trains the steps before it.",
                 "nothing between the steps is detached (no .detach(), no torch.no_grad()); only the target's "
                 "features and logits are constants")


def eagle_1(head, features, tokens, target_logits, steps: int, feature_weight: float, token_weight: float):
    """EAGLE-1's loss by its own definition (``steps`` is 1): ``eagle_loss`` of
    ``feature_draft_step``'s forward over the pairs ``(f_t, x_{t+1})``."""
    predicted, logits = feature_draft_step(head, features[:, :-1], tokens[:, 1:], None)
    return eagle_loss(predicted, features[:, 1:], logits, target_logits[:, 1:], feature_weight, token_weight)


def reference(head, given: dict, steps: int, feature_weight: float, token_weight: float):
    """The expected ``(loss, {own parameter: gradient}, own weights after one Adam step)``,
    through the check's own steps."""
    loss_fn = eagle_1 if steps == 1 else unrolled_eagle_loss
    value, grads, _, weights = loss_and_step(loss_fn, head, given, steps, feature_weight, token_weight)
    return float(value), grads, weights


def value_gradients_and_step(check: CheckRun, head, given: dict, steps: int, feature_weight: float,
                             token_weight: float, got: float, grads: dict, stepped: dict, what: str) -> None:
    value, gradients, weights = reference(head, given, steps, feature_weight, token_weight)
    named, right = "", abs(got - value) <= TOLERANCE
    if not right and steps > 1:
        before = reference(head, given, steps - 1, feature_weight, token_weight)[0]
        named = mistakes.named_mistake(got, value, [
            ("the last step's loss alone, where the mean over the steps is meant", steps * value - (steps - 1) * before),
            (POSITIONS_LEFT_OUT, without_positions(head, given, steps, feature_weight, token_weight)),
            (TOKENS_EARLY, tokens_one_early(head, given, steps, feature_weight, token_weight))], TOLERANCE)
    formula = "EAGLE-1's loss, eagle_loss of feature_draft_step's forward," if steps == 1 else "the reference"
    check.require("value", right, f"gave {got:.10f}; {formula} gives {value:.10f}{named}", HINT, case=what)
    # a wrong value makes wrong gradients whatever is detached: the value's hint is then the one to follow
    follows = "" if right else " (the value is wrong too: its gradients follow it)"
    got_gradients = {name: torch.zeros_like(closed) if grads.get(name) is None else grads[name]
                     for name, closed in gradients.items()} if isinstance(grads, dict) else {}
    gap = largest_gap(got_gradients, gradients)
    check.require("gradients of the head's parameters", gap <= GRADIENT_TOLERANCE,
                  f"the gradients of the head's parameters differ from the reference's by up to {gap:.3g}{follows}",
                  GRADIENT_HINT if right else HINT, case=what)
    gap = largest_gap(stepped, weights)
    check.require("one Adam step gives the reference's weights", gap <= GRADIENT_TOLERANCE,
                  f"after one Adam step (lr {LR}) from this loss the head's weights differ from the reference's "
                  f"by up to {gap:.3g}{follows}", GRADIENT_HINT if right else HINT, case=what)


class _DecoderWithoutPositions:
    """A head whose decoder is called without ``position_ids``: the decoder then places the
    queries after the keys its cache holds."""

    def __init__(self, head):
        self._head = head

    def __getattr__(self, name):
        return getattr(self._head, name)

    def decoder(self, **kwargs):
        return self._head.decoder(**{**kwargs, "position_ids": None})


@torch.no_grad()
def without_positions(head, given: dict, steps: int, feature_weight: float, token_weight: float) -> float:
    """The reference's loss with ``position_ids`` left out of every step's forward."""
    return float(unrolled_eagle_loss(_DecoderWithoutPositions(head), given["features"], given["tokens"],
                                     given["target_logits"], steps, feature_weight, token_weight))


class _TokensOneEarly:
    """A head whose steps ``j ≥ 1`` embed ``x_(t+j)`` in place of ``x_(t+j+1)``: the reference
    calls ``embed`` once per step, in order, so the call count is the step."""

    def __init__(self, head, tokens):
        self._head, self._tokens, self._step = head, tokens, 0

    def __getattr__(self, name):
        return getattr(self._head, name)

    def embed(self, given):
        step, self._step = self._step, self._step + 1
        return self._head.embed(given if step == 0 else self._tokens[:, step:step + given.shape[1]])


@torch.no_grad()
def tokens_one_early(head, given: dict, steps: int, feature_weight: float, token_weight: float) -> float:
    """The reference's loss with steps ``j ≥ 1`` fed the token one position early."""
    return float(unrolled_eagle_loss(_TokensOneEarly(head, given["tokens"]), given["features"], given["tokens"],
                                     given["target_logits"], steps, feature_weight, token_weight))


def largest_gap(got, expected: dict[str, torch.Tensor]) -> float:
    """The largest difference between ``got`` and ``expected`` (tensors by name); infinite
    where ``got`` is not such a mapping with the same names and shapes."""
    same = isinstance(got, dict) and got.keys() == expected.keys() and all(
        isinstance(got[name], torch.Tensor) and got[name].shape == value.shape for name, value in expected.items())
    if not same:
        return float("inf")
    return max(float((got[name].double() - value.double()).abs().max()) for name, value in expected.items())
