"""The train_drafter check's expected values: the contract's steps, replayed on the check's
fixed text, and the exact divergence and α of a drafter at held-out positions, enumerated
over every continuation the target can give them (as grader/oracle/laws.py enumerates)."""
from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import math
from typing import TYPE_CHECKING, Any

import torch
from scipy import stats as scipy_stats

from grader.judges import mistakes
from grader.judges.distillation_loss import per_position
from grader.judges.loss_suite import largest_gap
from grader.oracle import stats

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Setup, Steps, Trained

LATE_Z = 3.0  # a reported α this many standard errors from a value is not explained by it
STEP_TOLERANCE = 1e-9  # float64 weights: the same steps agree to rounding (about 1e-16)
STEP_HINT = ("a step must be the contract's: the drafter's predictions of the continuation (the positions "
             "of the target's), the chosen loss, a fresh gradient clipped to norm 1, one optimiser step, "
             "with one optimiser for the whole run.",
             "logits[:, P − 1 : −1], distillation_loss(target_logits, draft_logits, kind), "
             "optimizer.zero_grad(), loss.backward(), clip_grad_norm_(drafter.parameters(), 1.0), "
             "optimizer.step(), with one AdamW(drafter.parameters(), lr=lr) made before the first step.")
LATE_HINT = ("logits[:, t] predicts token t + 1, so the drafter's predictions of the continuation sit at "
             "the positions of the target's, one before each continuation token.",
             "the same slice as the target's: [:, P − 1 : −1], not [:, P:].")
ACCUMULATE_HINT = ("each step must follow its own gradient: backward() adds to .grad, so what earlier steps "
                   "left there makes every step follow the sum of all the gradients so far.",
                   "clear the gradients before each backward: optimizer.zero_grad().")
CLIP_HINT = ("a step's gradient is clipped before the optimiser uses it: one unlucky batch must not throw "
             "the drafter far.",
             "torch.nn.utils.clip_grad_norm_(drafter.parameters(), 1.0) between loss.backward() and "
             "optimizer.step().")
REPORT_HINT = ("α at a step is the acceptance the drafter, as it is then, would get along held-out text: "
               "positions it never trained on, continued by the target once, before training.",
               "the mean of expected_acceptance(p, q) over the held-out rows continued LENGTH tokens by the "
               "target (sampled once, before training) and every continuation position, q from the drafter "
               "as it is at that step, in eval mode.")
LATE_ALPHA_HINT = ("α compares the two models' distributions for the same token: logits[:, t] of either model "
                   "predicts token t + 1, so the drafter's q must come from the positions the target's p came from.",
                   "in held_out_alpha, q = drafter(texts).logits[:, start:-1].softmax(-1): the slice of p's "
                   "positions, not [:, start + 1:].")


ONE_STEP_BUGS = {  # reference_steps' keyword -> what its weights are, and the hint that fixes it
    "late": ("those of a step whose drafter logits are one position late", LATE_HINT),
    "unclipped": ("those of a step whose gradient is not clipped to norm 1", CLIP_HINT),
}


def steps(check: CheckRun, trained: Steps) -> None:
    """The drafter's weights after one step and after three on batches of the text against
    ``reference_steps``; a mismatch that matches a known bug names it."""
    got, kind = trained.weights, trained.kind
    start = trained.setup.fresh_drafter()

    def replayed(steps: int, **bug: bool) -> dict[str, torch.Tensor]:
        return reference_steps(trained.setup, start, trained.target, trained.row, steps, kind, **bug)

    expected = {steps: replayed(steps) for steps in (1, 3)}
    gap = {steps: largest_gap(got[steps], expected[steps]) for steps in (1, 3)}
    named = accumulated = ""
    one_step_hint = STEP_HINT
    if gap[1] > STEP_TOLERANCE:
        for bug, (what, hint) in ONE_STEP_BUGS.items():
            named = mistakes.named_mistake(got[1], expected[1], [(what, replayed(1, **{bug: True}))], STEP_TOLERANCE,
                                           lead=", and equal ")
            if named:
                one_step_hint = hint
                break
    elif gap[3] > STEP_TOLERANCE:
        accumulated = mistakes.named_mistake(got[3], expected[3], [(
            "those of steps whose gradients accumulate", replayed(3, accumulate=True))], STEP_TOLERANCE,
            lead=", and equal ")
    check.require("one step is the contract's step", gap[1] <= STEP_TOLERANCE,
                  f"after one step the drafter's weights differ from the contract's by up to {gap[1]:.3g}{named}",
                  one_step_hint, case=kind)
    check.require("three steps, each with its own gradient", gap[3] <= STEP_TOLERANCE or gap[1] > STEP_TOLERANCE,
                  f"after three steps the drafter's weights differ from the contract's by up to {gap[3]:.3g}"
                  f"{accumulated}", ACCUMULATE_HINT if accumulated else STEP_HINT, case=kind)


def reference_steps(setup: Setup, drafter: Any, target: Any, row: torch.Tensor, steps: int, kind: str,
                    late: bool = False, accumulate: bool = False, unclipped: bool = False) -> dict[str, torch.Tensor]:
    """The weights of a copy of ``drafter`` after ``steps`` of the contract's steps on batches
    of ``row`` ``[P + LENGTH]`` repeated; ``late``, ``accumulate`` and ``unclipped`` make the
    known bugs."""
    drafter = copy.deepcopy(drafter)
    ids = row.expand(setup.batch_size, -1)
    start = setup.prompt_length - 1 + int(late)
    with torch.no_grad():
        target_logits = target(ids).logits[:, setup.prompt_length - 1 : -1]
    optimizer = torch.optim.AdamW(drafter.parameters(), lr=setup.lr)
    for _ in range(steps):
        draft_logits = drafter(ids).logits[:, start : start + setup.length]
        # the contract's loss by its formula, from log_softmax as the contract says: the reference's to the bit
        loss = per_position(target_logits.log_softmax(-1), draft_logits.log_softmax(-1), kind).mean()
        if not accumulate:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if not unclipped:
            torch.nn.utils.clip_grad_norm_(drafter.parameters(), 1.0)
        optimizer.step()
    return {name: value.detach().clone() for name, value in drafter.state_dict().items()}


def improvement(check: CheckRun, trained: Trained) -> None:
    """The trained drafter against a fresh one: the exact divergence of its kind lowered, the
    exact α raised, and the α reported at the first and last step agreeing with the exact α."""
    setup, kind, label, history = trained.setup, trained.kind, trained.label, trained.history
    enumerated = enumeration(trained.target, tuple(map(tuple, setup.held_out)), setup.length)
    rows = setup.rows_per_held_out * check.draws  # per held-out prompt, as the check passed them
    before, after = enumerated.measure(setup.fresh_drafter(), kind, rows), enumerated.measure(trained.drafter, kind, rows)
    numbers = (f"after {setup.steps} steps, the exact mean {kind} at held-out positions went from "
               f"{before['divergence']:.4f} to {after['divergence']:.4f} and α from {before['alpha']:.4f} "
               f"to {after['alpha']:.4f}")
    check.note(f"{label}: {numbers}")
    check.require("lowers the divergence", after["divergence"] < before["divergence"], numbers, setup.improve_hint,
                  case=label)
    check.require("raises α at held-out positions", after["alpha"] > before["alpha"], numbers, setup.improve_hint,
                  case=label)
    for step, measured in ((0, before), (setup.steps, after)):
        result = agreement(history[step], measured)
        late = late_alpha(history[step], measured, result.statistic)
        check.test(f"reported α at step {step} agrees with the exact α",
                   dataclasses.replace(result, message=result.message + late), LATE_ALPHA_HINT if late else REPORT_HINT,
                   case=label)


def agreement(value: float, measured: dict, which: str = "alpha") -> stats.TestResult:
    """Two-sided z-test of a reported α (a mean over rows) against the exact α (``which``:
    "alpha", or "late_alpha", α measured one position late)."""
    z = (value - measured[which]) / measured[f"{which}_sd"]
    p_value = float(2 * scipy_stats.norm.sf(abs(z)))
    return stats.TestResult(p_value, z, measured["rows"],
                            f"reported α {value:.4f}, exact {measured[which]:.4f} (standard error "
                            f"{measured[f'{which}_sd']:.4f}, z = {z:.1f})")


def late_alpha(value: float, measured: dict, z: float) -> str:
    """What to add to the message when the reported α, far from the exact one (``z``), is
    what α measured one position late gives (q at position t + 1 against p at t): ""
    otherwise. Named only when that α explains the value (|z| ≤ LATE_Z) and the right one
    does not."""
    z_late = agreement(value, measured, "late_alpha").statistic
    if abs(z) <= LATE_Z or abs(z_late) > LATE_Z:
        return ""
    return (f"; yours agrees with α measured one position late, the drafter's q at position t + 1 against "
            f"the target's p at t (exact {measured['late_alpha']:.4f}, z = {z_late:.1f})")


class Enumeration:
    """Every continuation of ``length`` tokens of each held-out prompt, with its probability
    under the target and the target's distributions along it: exact expectations."""

    def __init__(self, target: Any, held_out: tuple[tuple[int, ...], ...], length: int):
        vocab = target.config.vocab_size
        continuations = torch.tensor(list(itertools.product(range(vocab), repeat=length)))
        self.length, self.prompts = length, len(held_out)
        self.texts, self.weights, self.p = [], [], []
        with torch.no_grad():
            for prompt in held_out:
                ids = torch.cat([torch.tensor(prompt).expand(len(continuations), -1), continuations], dim=1)
                p = target(ids[:, :-1]).logits[:, len(prompt) - 1 :].softmax(-1)  # [V^L, L, V]
                weight = p.gather(-1, continuations.unsqueeze(-1)).squeeze(-1).prod(-1)  # [V^L]
                self.texts.append(ids)
                self.weights.append(weight)
                self.p.append(p)

    @torch.no_grad()
    def measure(self, drafter, kind: str, rows_per_prompt: int) -> dict:
        """Exact mean α and divergence per position, and the standard error of α as the loop
        estimates it (the mean over ``rows_per_prompt`` sampled rows of each prompt); the
        same for ``late_alpha``, α with the drafter's q one position late (a usual mistake)."""
        means, variances, chosen = {"alpha": 0.0, "late_alpha": 0.0}, {"alpha": 0.0, "late_alpha": 0.0}, 0.0
        rows = rows_per_prompt * self.prompts ** 2  # the loop's mean: of ROWS rows, then of the prompts
        for texts, weight, p in zip(self.texts, self.weights, self.p):
            log_q = drafter(texts).logits[:, -self.length - 1:].log_softmax(-1)  # [V^L, L + 1, V]
            for name, q in (("alpha", log_q[:, :-1].exp()), ("late_alpha", log_q[:, 1:].exp())):
                row_alpha = torch.minimum(p, q).sum(-1).mean(-1)  # [V^L]: α averaged along a row
                mean = float((weight * row_alpha).sum())
                means[name] += mean / self.prompts
                variances[name] += float((weight * (row_alpha - mean) ** 2).sum()) / rows
            chosen += float((weight * per_position(p.log(), log_q[:, :-1], kind).mean(-1)).sum()) / self.prompts
        return {**means, **{f"{name}_sd": math.sqrt(v) for name, v in variances.items()}, "divergence": chosen,
                "rows": rows_per_prompt * self.prompts}


@functools.lru_cache(maxsize=1)
def enumeration(target: Any, held_out: tuple[tuple[int, ...], ...], length: int) -> Enumeration:
    """The ``Enumeration`` of the check's target, made once for all its runs."""
    return Enumeration(target, held_out, length)
