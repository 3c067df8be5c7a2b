"""The loss suite (grader/checks/loss_suite.py, grader/judges/loss_suite.py) on planted
losses: gradients come back by input name, a loss that is no scalar gives none, a gradient
into the teacher fails its property with the hint of where it leaked, a wrong or NaN value
fails "value" and a usual mistake is named, and gaps count a missing gradient as zeros."""
import math

import pytest
import torch

from grader import exercises
from grader.checks import distillation_loss, loss_suite
from grader.checks.harness import CheckRun, Stop
from grader.judges import distillation_loss as distillation_judge
from grader.judges import loss_suite as judged


def run_of(exercise: str = "eagle_loss") -> CheckRun:
    return CheckRun(exercises.get(exercise), None, seed=0)


GIVEN = {"features": torch.ones(2, dtype=torch.float64), "target_logits": torch.full((2,), 2.0, dtype=torch.float64)}


def test_loss_and_gradients_returns_each_inputs_gradient_and_none_for_a_loss_that_is_no_scalar():
    value, grads = loss_suite.loss_and_gradients(lambda f, t: (f * t.detach()).sum(), GIVEN)
    assert float(value) == 4.0 and grads["features"].tolist() == [2.0, 2.0] and grads["target_logits"] is None
    assert loss_suite.loss_and_gradients(lambda f, t: f * t, GIVEN)[1] == {}
    assert GIVEN["features"].grad is None  # the caller's tensors are left alone


def test_a_gradient_into_the_teacher_fails_with_the_hint_of_where_it_leaked():
    for head_reads_features, leaked, hint in ((False, {"features"}, loss_suite.DETACH_HINT),
                                              (True, {"features"}, loss_suite.INPUT_DETACH_HINT),
                                              (True, {"features", "target_logits"}, loss_suite.DETACH_HINT)):
        check = run_of()
        grads = {name: torch.ones(2) if name in leaked else torch.zeros(2) for name in GIVEN}
        loss_suite.teacher_detached(check, grads, "case", head_reads_features)
        assert [(f.name, f.hint) for f in check.findings] == [("no gradient into the target's side", hint[0])]
    check = run_of()
    loss_suite.teacher_detached(check, {"features": None, "target_logits": torch.zeros(2)}, "case")
    assert check.properties == 1 and not check.findings


def test_a_value_that_is_no_scalar_stops_the_check():
    with pytest.raises(Stop, match="a scalar loss"):
        loss_suite.scalar(run_of(), torch.zeros(3), "(here)", "a 0-dim tensor")
    loss_suite.scalar(run_of(), torch.tensor(1.0), "(here)", "a 0-dim tensor")


def test_a_wrong_or_nan_value_fails_and_a_usual_mistake_is_named():
    check = run_of()
    for got in (1.0, 2.0, math.nan, 3.0):
        judged.require_value(check, got, 1.0, 1e-10, "hint", "case", lambda: [("the doubled value", 2.0)])
    messages = [f.message for f in check.findings]
    assert len(messages) == 3 and messages[0].endswith("; yours equals the doubled value")
    assert not messages[1].endswith("value") and not messages[2].endswith("value")


def test_distillation_losss_value_property_fails_a_nan_loss():
    """Its own tolerance test once let NaN through: abs(NaN - x) > tolerance is False."""
    target, draft = distillation_loss.hand_made_logits()
    for value, fails in ((float(distillation_judge.expected_value(target, draft, "jsd", 1.0)), False),
                         (math.nan, True)):
        check = run_of("distillation_loss")
        distillation_judge.loss_value(check, distillation_loss.Loss("jsd", "hand-made", target, draft, 1.0, "",
                                                                    value=value))
        assert bool(check.findings) == fails


def test_gaps_count_no_gradient_as_zeros_and_another_shape_or_name_as_infinite():
    assert judged.gap(None, torch.tensor([0.5, -2.0])) == 2.0
    assert judged.gap(torch.ones(3), torch.ones(2)) == math.inf
    assert judged.largest_gap({"a": torch.ones(2), "b": None}, {"a": torch.zeros(2), "b": torch.ones(1)}) == 1.0
    assert judged.largest_gap({"a": torch.ones(2)}, {"b": torch.ones(2)}) == math.inf
    assert judged.largest_gap([torch.ones(2)], {"a": torch.ones(2)}) == math.inf
