"""Lesson 10: the closed forms the distillation_loss check holds learners to, the reference's
errors on bad input, and each mutant of the lesson failing for the reason it was written for."""
from pathlib import Path

import pytest
import torch

from grader import exercises
from grader.checks import distillation_loss as loss_check
from grader.judges import distillation_loss as loss_judge
from grader.studies import mutants
from grader.studies.in_process import replayed
from grader.verdict import FAILED, format_text
from solutions import distill

MUTANTS = Path(__file__).parent / "mutants"
REASONS = {  # mutant -> the property its first finding must name, and words of its message
    "distill_alpha_mean_q_at_draft": ("α = 1 − TV(p, q) to 1e-12", "α differs from 1 − ½ Σ |p − q|"),
    "distill_p_q_swapped": ("value (forward_kl", "yours equals the value of reverse_kl (p and q swapped"),
    "distill_tv_without_half": ("value (total_variation", "yours equals twice the formula: total variation has a ½"),
    "distill_logits_not_log_probabilities": ("value (forward_kl", "yours equals the formula on raw logits"),
    "distill_sum_over_positions": ("value (forward_kl", "yours equals the sum over the 4 positions where their mean is meant"),
    "distill_no_temperature": ("value (forward_kl, hand-made [4, 5], temperature 0.5)",
                               "yours equals the value at temperature 1: the temperature is left out"),
    "distill_target_not_detached": ("no gradient into the target's logits", "reached target_logits"),
    "distill_off_policy_labelled_on_policy": ("the rows marked from the drafter follow the drafter's law",
                                              "do not follow their exact law given the prompt"),
    "distill_logits_one_late": ("one step is the contract's step (forward_kl)",
                                "equal those of a step whose drafter logits are one position late"),
    "distill_no_zero_grad": ("three steps, each with its own gradient (forward_kl)",
                             "equal those of steps whose gradients accumulate"),
    "distill_optimises_target": ("one step is the contract's step (forward_kl)",
                                 "weights differ from the contract's by up to"),
}


@pytest.mark.parametrize("kind", distill.KINDS)
@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_closed_form_gradients_equal_autograd_of_the_formulas(kind, temperature):
    target, draft = loss_check.hand_made_logits()
    draft = draft.clone().requires_grad_(True)
    value = loss_judge.expected_value(target, draft, kind, temperature)
    (autograd,) = torch.autograd.grad(value, draft)
    closed = loss_judge.expected_gradient(target, draft.detach(), kind, temperature)
    assert torch.allclose(autograd, closed, rtol=0, atol=1e-13), (autograd - closed).abs().max()
    reference = distill.distillation_loss(target, draft.detach(), kind, temperature)
    assert float(reference) == pytest.approx(float(value.detach()), abs=1e-14)


def test_total_variation_is_one_minus_alpha():
    p, q = (3 * torch.randn(2, 7, 9, dtype=torch.float64)).softmax(-1)
    tv = 0.5 * (p - q).abs().sum(-1)
    assert torch.allclose(distill.expected_acceptance(p, q), 1 - tv, rtol=0, atol=1e-15)


def test_bad_input_gets_a_clear_error():
    logits = torch.zeros(2, 4)
    with pytest.raises(ValueError, match="unknown kind 'kl'; expected one of 'forward_kl'"):
        distill.distillation_loss(logits, logits, "kl")
    with pytest.raises(ValueError, match="same shape"):
        distill.distillation_loss(logits, torch.zeros(2, 5), "jsd")
    with pytest.raises(ValueError, match=r"target_fraction must lie in \[0, 1\], got 1.5"):
        distill.on_policy_batch(None, None, torch.zeros(2, 2, dtype=torch.long), 3, target_fraction=1.5)
    with pytest.raises(ValueError, match=r"fixed data needs texts \[M, P \+ length\] = \[M, 5\], got None"):
        distill.train_drafter(None, None, torch.zeros(2, 2, dtype=torch.long), torch.zeros(2, 2, dtype=torch.long),
                              steps=1, on_policy=False, length=3)


@pytest.mark.parametrize("name", REASONS)
def test_a_mutant_fails_for_its_own_bug(name, tmp_path):
    """The first finding names the bug's property, and its message shows the numbers (for the
    loop: how far its weights are from the contract's steps, and which bug they match)."""
    mutant = mutants.load(MUTANTS / f"{name}.py")
    verdict = replayed(exercises.get(mutant.exercise), str(mutants.build(mutant, tmp_path)), seed=0)
    prop, words = REASONS[name]
    assert verdict.status == FAILED, format_text(verdict, verbose=True)
    assert verdict.findings[0].property.startswith(prop), format_text(verdict, verbose=True)
    assert words in verdict.findings[0].message, verdict.findings[0].message
