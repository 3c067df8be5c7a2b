"""Check `train_drafter` on a tiny pair (a two-layer Llama target, a one-layer Llama drafter,
six tokens, float64): a fixed number of steps from a fixed seed, on-policy with each kind
and on fixed text once, must lower the chosen divergence and raise α at held-out positions,
leave the target unchanged, and report α at the steps its contract names.

The grader measures both ends itself, exactly: the drafter's weights come back after
training, and the divergence and α along the target's continuations of held-out prompts
are sums over every continuation of ``LENGTH`` tokens, each weighted by its probability
under the target (grader/oracle/laws.py's enumeration). The α the loop reports (a mean
over its own sample of those continuations) must agree with the exact value at the first
and last step (a z-test whose variance is also computed exactly).

Before that, the steps themselves: on fixed text whose rows are all one sequence (so every
batch is the same, whichever rows a loop draws), the drafter's weights after one step and
after three must be those of the contract's steps (``reference_steps``), to 1e-9. Improving
is not enough: drafter logits taken one position late, or gradients that accumulate because
``zero_grad`` is missing, still improve, and both are named when their weights match."""
import copy
import itertools
import math

import torch
from scipy import stats as scipy_stats

from grader.checks.harness import CheckRun
from grader.oracle import stats, tiny
from solutions.distill import KINDS, distillation_loss, divergence, sample_continuations

MODEL_SEED = 21
LENGTH = 4
STEPS = 40
EVAL_EVERY = 10
HELD_OUT = ([1, 2], [3, 4], [5, 0], [2, 2])  # never a training prompt
ROWS_PER_HELD_OUT = 16
SETTINGS = dict(length=LENGTH, batch_size=8, lr=1e-2, eval_every=EVAL_EVERY)
RUNS = [(kind, True) for kind in KINDS] + [("forward_kl", False)]
PROMPT_LENGTH = 2
STEP_KINDS = ("forward_kl", "total_variation")  # a smooth loss and a kinked one
STEP_TOLERANCE = 1e-9  # float64 weights: the same steps agree to rounding (about 1e-16)
STEP_HINT = ("one step is: the drafter's logits at positions P − 1 … −2 (those that predict the "
             "continuation, as the target's), distillation_loss(target_logits, draft_logits, kind), "
             "optimizer.zero_grad(), loss.backward(), clip_grad_norm_(drafter.parameters(), 1.0), "
             "optimizer.step(), with one AdamW(drafter.parameters(), lr=lr) made before the first step.")
LATE_HINT = ("logits[:, t] predicts token t + 1, so the drafter's predictions of the continuation sit at "
             "positions P − 1 … −2, the same slice as the target's: [:, P − 1 : −1], not [:, P:].")
ACCUMULATE_HINT = ("backward() adds to .grad: without optimizer.zero_grad() before it, each step's gradient "
                   "is the sum of every step's so far, and the optimiser follows stale directions.")
IMPROVE_HINT = ("each step: a batch of rows (on_policy_batch, or windows of texts), the drafter's logits at "
                "positions P − 1 … −2 against the target's, distillation_loss(…, kind), zero_grad, backward, "
                "clip_grad_norm_(drafter.parameters(), 1.0), and a step of AdamW over drafter.parameters() "
                "(not the target's: it is the teacher and never changes).")
REPORT_HINT = ("report α as the mean of expected_acceptance(p, q) over the held-out rows continued LENGTH "
               "tokens by the target (sampled once, before training) and every continuation position, q from "
               "the drafter as it is at that step, in eval mode.")


def models():
    return tiny.tiny_llama(MODEL_SEED, layers=2), tiny.tiny_llama(MODEL_SEED + 1, layers=1)


def parameters_of(model) -> dict:
    """The model's weights, copied: how the trained drafter comes back from the run."""
    return {name: value.detach().clone() for name, value in model.state_dict().items()}


def run(check: CheckRun) -> None:
    train = check.function("train_drafter")
    target, _ = models()
    original_target = parameters_of(target)
    prompts = torch.tensor([list(pair) for pair in itertools.product(range(tiny.TINY_VOCAB), repeat=2)
                            if list(pair) not in HELD_OUT])
    held_out = torch.tensor([prompt for prompt in HELD_OUT for _ in range(ROWS_PER_HELD_OUT)])
    texts = sample_continuations(target, prompts.repeat(2, 1), LENGTH, check.generator("texts"))
    for kind in STEP_KINDS:
        check_steps(check, train, target, prompts, held_out, texts[0], kind)
    enumerated = Enumeration(target)
    for kind, on_policy in RUNS:
        data = "on-policy" if on_policy else "fixed text"
        label = f"{kind}, {data}"
        _, drafter = models()
        before = enumerated.measure(drafter, kind)
        check.seed_everything("train", kind, on_policy)
        history = check.call(train, drafter, target, prompts, held_out, STEPS, kind=kind, on_policy=on_policy,
                             texts=None if on_policy else texts, generator=check.generator("train", kind, on_policy),
                             what=f"({label}, steps={STEPS}, {SETTINGS})", **SETTINGS)
        history = reported(check, history, label)
        trained = check.call(parameters_of, drafter, what="(reading the trained drafter's weights)")
        load(check, drafter, trained, label)
        after = enumerated.measure(drafter, kind)
        numbers = (f"after {STEPS} steps, the exact mean {kind} at held-out positions went from "
                   f"{before['divergence']:.4f} to {after['divergence']:.4f} and α from {before['alpha']:.4f} "
                   f"to {after['alpha']:.4f}")
        check.note(f"{label}: {numbers}")
        check.require(f"lowers the divergence ({label})", after["divergence"] < before["divergence"], numbers,
                      IMPROVE_HINT)
        check.require(f"raises α at held-out positions ({label})", after["alpha"] > before["alpha"], numbers,
                      IMPROVE_HINT)
        for step, measured in ((0, before), (STEPS, after)):
            check.test(f"reported α at step {step} agrees with the exact α ({label})",
                       agreement(history[step], measured), REPORT_HINT)
    final = check.call(parameters_of, target, what="(reading the target's weights after training)")
    changed = [name for name, value in original_target.items()
               if not (isinstance(final, dict) and name in final and isinstance(final[name], torch.Tensor)
                       and torch.equal(final[name], value))]
    check.require("the target is never trained", not changed,
                  f"after training, the target's {', '.join(changed[:3])} changed", IMPROVE_HINT)


def check_steps(check: CheckRun, train, target, prompts, held_out, row: torch.Tensor, kind: str) -> None:
    """The weights after one step and after three, on batches of the one text ``row``
    ``[P + LENGTH]``, against ``reference_steps``; a mismatch that matches a known bug names it."""
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
    _, start = models()
    gap = {steps: difference(got[steps], reference_steps(start, target, row, steps, kind)) for steps in (1, 3)}
    late = difference(got[1], reference_steps(start, target, row, 1, kind, late=True))
    one = f"one step is the contract's step ({kind})"
    if late <= STEP_TOLERANCE < gap[1]:
        check.require(one, False, f"after one step the drafter's weights differ from the contract's by "
                      f"{gap[1]:.3g}, and equal those of a step whose drafter logits are one position late",
                      LATE_HINT)
    else:
        check.require(one, gap[1] <= STEP_TOLERANCE, f"after one step the drafter's weights differ from "
                      f"the contract's by up to {gap[1]:.3g}", STEP_HINT)
    three = f"three steps, each with its own gradient ({kind})"
    if gap[1] <= STEP_TOLERANCE < gap[3]:
        accumulated = difference(got[3], reference_steps(start, target, row, 3, kind, accumulate=True))
        named = accumulated <= STEP_TOLERANCE
        check.require(three, False, f"after three steps the drafter's weights differ from the contract's by "
                      f"{gap[3]:.3g}" + (", and equal those of steps whose gradients accumulate" if named else ""),
                      ACCUMULATE_HINT if named else STEP_HINT)
    else:
        check.require(three, gap[3] <= STEP_TOLERANCE or gap[1] > STEP_TOLERANCE,
                      f"after three steps the drafter's weights differ from the contract's by {gap[3]:.3g}",
                      STEP_HINT)


def reference_steps(drafter, target, row: torch.Tensor, steps: int, kind: str, late: bool = False,
                    accumulate: bool = False) -> dict:
    """The weights of a copy of ``drafter`` after ``steps`` of the contract's steps on batches
    of ``row`` ``[P + LENGTH]`` repeated; ``late`` and ``accumulate`` make the two known bugs."""
    drafter = copy.deepcopy(drafter)
    ids = row.expand(SETTINGS["batch_size"], -1)
    start = PROMPT_LENGTH - 1 + int(late)
    with torch.no_grad():
        target_logits = target(ids).logits[:, PROMPT_LENGTH - 1 : -1]
    optimizer = torch.optim.AdamW(drafter.parameters(), lr=SETTINGS["lr"])
    for _ in range(steps):
        draft_logits = drafter(ids).logits[:, start : start + LENGTH]
        loss = distillation_loss(target_logits, draft_logits, kind)
        if not accumulate:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(drafter.parameters(), 1.0)
        optimizer.step()
    return parameters_of(drafter)


def difference(weights: dict, expected: dict) -> float:
    """The largest difference between two sets of the drafter's weights (same names, checked)."""
    return max(float((weights[name].double() - value.double()).abs().max()) for name, value in expected.items())


def reported(check: CheckRun, history, label: str, steps: int = STEPS, every: int = EVAL_EVERY) -> dict[int, float]:
    """``{step: α}`` from the returned ``[(step, α), ...]``, after checking its form."""
    steps = list(range(0, steps + 1, every))
    history = history if isinstance(history, (list, tuple)) else [history]
    pairs = [tuple(pair) for pair in history if isinstance(pair, (list, tuple)) and len(pair) == 2]
    ok = (len(pairs) == len(history) == len(steps) and [pair[0] for pair in pairs] == steps
          and all(isinstance(a, float) and 0.0 <= a <= 1.0 for _, a in pairs))
    if not ok:
        check.fail(f"α reported at steps {steps} ({label})",
                   f"returned {str(history)[:160]}; expected a list of (step, α) pairs for steps {steps}, "
                   "each α a float in [0, 1]", "measure α at step 0, then after every eval_every steps and after "
                   "the last step (once when they coincide); return [(step, float(alpha)), ...].")
    return dict(pairs)


def load(check: CheckRun, drafter, weights, label: str) -> None:
    expected = drafter.state_dict()
    same = isinstance(weights, dict) and weights.keys() == expected.keys() and all(
        isinstance(weights[k], torch.Tensor) and weights[k].shape == v.shape for k, v in expected.items())
    if not same:
        check.fail(f"the drafter keeps its parameters ({label})", "after training, the drafter's parameters "
                   "have other names or shapes", "train the drafter passed in, in place: no new model")
    drafter.load_state_dict({k: v.to(expected[k].dtype) for k, v in weights.items()})


def agreement(value: float, measured: dict) -> stats.TestResult:
    """Two-sided z-test of a reported α (a mean over rows) against the exact α."""
    z = (value - measured["alpha"]) / measured["alpha_sd"]
    p_value = float(2 * scipy_stats.norm.sf(abs(z)))
    return stats.TestResult(p_value, z, len(HELD_OUT) * ROWS_PER_HELD_OUT,
                            f"reported α {value:.4f}, exact {measured['alpha']:.4f} (standard error "
                            f"{measured['alpha_sd']:.4f}, z = {z:.1f})")


class Enumeration:
    """Every continuation of ``LENGTH`` tokens of each held-out prompt, with its probability
    under the target and the target's distributions along it: exact expectations."""

    def __init__(self, target):
        vocab = target.config.vocab_size
        continuations = torch.tensor(list(itertools.product(range(vocab), repeat=LENGTH)))
        self.inputs, self.weights, self.p = [], [], []
        with torch.no_grad():
            for prompt in HELD_OUT:
                ids = torch.cat([torch.tensor(prompt).expand(len(continuations), -1), continuations], dim=1)
                p = target(ids[:, :-1]).logits[:, len(prompt) - 1 :].softmax(-1)  # [V^L, L, V]
                weight = p.gather(-1, continuations.unsqueeze(-1)).squeeze(-1).prod(-1)  # [V^L]
                self.inputs.append(ids[:, :-1])
                self.weights.append(weight)
                self.p.append(p)

    @torch.no_grad()
    def measure(self, drafter, kind: str) -> dict:
        """Exact mean α and divergence per position, and the standard error of α as the loop
        estimates it (the mean over ``ROWS_PER_HELD_OUT`` sampled rows of each prompt)."""
        alpha = spread = chosen = 0.0
        for inputs, weight, p in zip(self.inputs, self.weights, self.p):
            log_q = drafter(inputs).logits[:, -LENGTH:].log_softmax(-1)
            row_alpha = torch.minimum(p, log_q.exp()).sum(-1).mean(-1)  # [V^L]: α averaged along a row
            mean = float((weight * row_alpha).sum())
            alpha += mean / len(HELD_OUT)
            spread += float((weight * (row_alpha - mean) ** 2).sum()) / ROWS_PER_HELD_OUT / len(HELD_OUT) ** 2
            chosen += float((weight * divergence(p.log(), log_q, kind).mean(-1)).sum()) / len(HELD_OUT)
        return {"alpha": alpha, "alpha_sd": math.sqrt(spread), "divergence": chosen}
