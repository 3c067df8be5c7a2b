"""Check `train_drafter` on a tiny pair (a two-layer Llama target, a one-layer Llama drafter,
six tokens, float64): a fixed number of steps from a fixed seed, on-policy with each kind
and on fixed text once, must lower the chosen divergence and raise α at held-out positions,
leave the target unchanged, and report α at the steps its contract names.

The grader measures both ends itself, exactly: the drafter's weights come back after
training, and the divergence and α along the target's continuations of held-out prompts
are sums over every continuation of ``LENGTH`` tokens, each weighted by its probability
under the target (grader/oracle/laws.py's enumeration). The α the loop reports (a mean
over its own sample of those continuations) must agree with the exact value at the first
and last step (a z-test whose variance is also computed exactly)."""
import itertools
import math

import torch
from scipy import stats as scipy_stats

from grader.checks.harness import CheckRun
from grader.oracle import stats, tiny
from solutions.distill import KINDS, divergence, sample_continuations

MODEL_SEED = 21
LENGTH = 4
STEPS = 40
EVAL_EVERY = 10
HELD_OUT = ([1, 2], [3, 4], [5, 0], [2, 2])  # never a training prompt
ROWS_PER_HELD_OUT = 16
SETTINGS = dict(length=LENGTH, batch_size=8, lr=1e-2, eval_every=EVAL_EVERY)
RUNS = [(kind, True) for kind in KINDS] + [("forward_kl", False)]
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


def reported(check: CheckRun, history, label: str) -> dict[int, float]:
    """``{step: α}`` from the returned ``[(step, α), ...]``, after checking its form."""
    steps = list(range(0, STEPS + 1, EVAL_EVERY))
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
