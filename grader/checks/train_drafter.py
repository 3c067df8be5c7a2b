"""Check `train_drafter` on a tiny pair (a two-layer Llama target, a one-layer Llama drafter,
six tokens, float64): a fixed number of steps from a fixed seed, on-policy with each kind
and on fixed text once, must lower the chosen divergence and raise α at held-out positions,
leave the target unchanged, and report α at the steps its contract names.

The grader measures both ends itself, exactly: the drafter's weights come back after
training, and the decider's judge (grader/judges/train_drafter.py) measures the divergence
and α along the target's continuations of held-out prompts, sums over every continuation
of ``LENGTH`` tokens, each weighted by its probability under the target (grader/oracle/laws.py's
enumeration). The α the loop reports (a mean over its own sample of those continuations)
must agree with the exact value at the first and last step (a z-test whose variance is also
computed exactly).

Before that, the steps themselves: on fixed text whose rows are all one sequence (so every
batch is the same, whichever rows a loop draws), the drafter's weights after one step and
after three must be those of the contract's steps (the judge's ``reference_steps``), to
1e-9. Improving is not enough: drafter logits taken one position late, or gradients that
accumulate because ``zero_grad`` is missing, still improve, and both are named when their
weights match."""
import itertools
from typing import Any

import torch

from grader.checks.harness import CheckRun
from grader.judged.losses import Setup, Steps, Trained
from grader.oracle import tiny
from solutions.distill import KINDS, sample_continuations

MODEL_SEED = 21
LENGTH = 4
STEPS = 40
EVAL_EVERY = 10
HELD_OUT = ([1, 2], [3, 4], [5, 0], [2, 2])  # never a training prompt
ROWS_PER_HELD_OUT = 16
BATCH_SIZE, LR = 8, 1e-2
SETTINGS = dict(length=LENGTH, batch_size=BATCH_SIZE, lr=LR, eval_every=EVAL_EVERY)
RUNS = [(kind, True) for kind in KINDS] + [("forward_kl", False)]
PROMPT_LENGTH = 2
STEP_KINDS = ("forward_kl", "total_variation")  # a smooth loss and a kinked one
IMPROVE_HINT = ("training distils the target's distributions into the drafter, on rows it draws afresh at "
                "every step, so the divergence falls at positions it never trained on; only the drafter learns: "
                "the target is the teacher and never changes.",
                "each step: a batch of rows (on_policy_batch, or whole rows of texts), the drafter's logits at "
                "the target's positions, distillation_loss(…, kind), a fresh gradient clipped to norm 1, and "
                "one optimiser step over the drafter's parameters alone.",
                "logits[:, P − 1 : −1]; optimizer.zero_grad(); loss.backward(); "
                "clip_grad_norm_(drafter.parameters(), 1.0); optimizer.step(), with "
                "AdamW(drafter.parameters(), lr=lr) made once.")
HISTORY_HINT = ("the history has one (step, α) pair per evaluation: step 0, every eval_every steps, and the "
                "last step (once when they coincide), each α a float in [0, 1].",
                "return [(step, float(alpha)), ...]")


def models() -> tuple[Any, Any]:
    return tiny.tiny_llama(MODEL_SEED, layers=2), tiny.tiny_llama(MODEL_SEED + 1, layers=1)


SETUP = Setup(HELD_OUT, ROWS_PER_HELD_OUT, LENGTH, PROMPT_LENGTH, STEPS, BATCH_SIZE, LR, IMPROVE_HINT,
              fresh_drafter=lambda: models()[1])  # what the judges replay and measure with


def parameters_of(model) -> dict:
    """The model's weights, copied: how the trained drafter comes back from the run."""
    return {name: value.detach().clone() for name, value in model.state_dict().items()}


def run(check: CheckRun) -> None:
    train = check.function("train_drafter")
    target, _ = models()
    original_target = parameters_of(target)
    prompts = torch.tensor([list(pair) for pair in itertools.product(range(tiny.TINY_VOCAB), repeat=2)
                            if list(pair) not in HELD_OUT])
    held_out = held_out_rows(1)
    texts = sample_continuations(target, prompts.repeat(2, 1), LENGTH, check.generator("texts"))
    for kind in STEP_KINDS:
        check_steps(check, train, target, prompts, held_out, texts[0], kind)
    measured = held_out_rows(check.draws)  # the rows α is tested on: the grading config's draws multiply them
    for kind, on_policy in RUNS:
        data = "on-policy" if on_policy else "fixed text"
        label = f"{kind}, {data}"
        _, drafter = models()
        check.seed_everything("train", kind, on_policy)
        history = check.call(train, drafter, target, prompts, measured, STEPS, kind=kind, on_policy=on_policy,
                             texts=None if on_policy else texts, generator=check.generator("train", kind, on_policy),
                             what=f"({label}, steps={STEPS}, {SETTINGS})", **SETTINGS)
        history = reported(check, history, label)
        trained = check.call(parameters_of, drafter, what="(reading the trained drafter's weights)")
        load(check, drafter, trained, label)
        check.judge("improvement", Trained(target, drafter, kind, label, history, SETUP))
    final = check.call(parameters_of, target, what="(reading the target's weights after training)")
    changed = [name for name, value in original_target.items()
               if not (isinstance(final, dict) and name in final and isinstance(final[name], torch.Tensor)
                       and torch.equal(final[name], value))]
    check.require("the target is never trained", not changed,
                  f"after training, the target's {', '.join(changed[:3])} changed", IMPROVE_HINT)


def held_out_rows(times: int) -> torch.Tensor:
    """``[len(HELD_OUT) * ROWS_PER_HELD_OUT * times, PROMPT_LENGTH]``: each held-out prompt's rows."""
    return torch.tensor([prompt for prompt in HELD_OUT for _ in range(ROWS_PER_HELD_OUT * times)])


def check_steps(check: CheckRun, train, target, prompts, held_out, row: torch.Tensor, kind: str) -> None:
    """The weights after one step and after three, on batches of the one text ``row``
    ``[P + LENGTH]``, judged against the contract's steps."""
    texts = row.expand(len(prompts), -1).clone()
    got = {}
    for steps in (1, 3):
        label = f"{kind}, fixed text of one repeated row, steps={steps}"
        _, drafter = models()
        check.seed_everything("steps", kind, steps)
        history = check.call(train, drafter, target, prompts, held_out, steps, kind=kind, on_policy=False,
                             texts=texts, generator=check.generator("steps", kind, steps), what=f"({label})",
                             **dict(SETTINGS, eval_every=steps))
        reported(check, history, label, steps, every=steps)
        got[steps] = check.call(parameters_of, drafter, what="(reading the trained drafter's weights)")
        load(check, drafter, got[steps], label)
    check.judge("steps", Steps(target, row, kind, got, SETUP))


def reported(check: CheckRun, history, label: str, steps: int = STEPS, every: int = EVAL_EVERY) -> dict[int, float]:
    """``{step: α}`` from the returned ``[(step, α), ...]``, after checking its form."""
    steps = list(range(0, steps + 1, every))
    history = history if isinstance(history, (list, tuple)) else [history]
    pairs = [tuple(pair) for pair in history if isinstance(pair, (list, tuple)) and len(pair) == 2]
    ok = (len(pairs) == len(history) == len(steps) and [pair[0] for pair in pairs] == steps
          and all(isinstance(a, float) and 0.0 <= a <= 1.0 for _, a in pairs))
    if not ok:
        check.fail(f"α reported at steps {steps}",
                   f"returned {str(history)[:160]}; expected a list of (step, α) pairs for steps {steps}, "
                   "each α a float in [0, 1]", HISTORY_HINT, case=label)
    return dict(pairs)


def load(check: CheckRun, drafter, weights, label: str) -> None:
    expected = drafter.state_dict()
    same = isinstance(weights, dict) and weights.keys() == expected.keys() and all(
        isinstance(weights[k], torch.Tensor) and weights[k].shape == v.shape for k, v in expected.items())
    if not same:
        check.fail("the drafter keeps its parameters", "after training, the drafter's parameters "
                   "have other names or shapes", "train the drafter passed in, in place: no new model", case=label)
    drafter.load_state_dict({k: v.to(expected[k].dtype) for k, v in weights.items()})
