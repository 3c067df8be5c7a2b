"""The replay contract (grader/checks/harness.py): every check asks for the same calls, with
the same arguments, each time it runs on the same seed; a check that does not would make
the decider blame the learner. Proved able to fail on a check that draws unseeded input."""
from dataclasses import replace

import pytest

from grader import exercises
from grader.selftest.in_process import first_difference


@pytest.mark.parametrize("exercise", exercises.EXERCISES, ids=lambda e: e.id)
def test_every_check_asks_the_same_calls_twice(exercise):
    assert first_difference(exercise, "solutions", seed=0) is None


def test_a_check_with_unseeded_input_is_caught():
    broken = replace(exercises.get("max_fn"), check="tests.nondeterministic_check")
    difference = first_difference(broken, "solutions", seed=0)
    assert difference is not None and "digest" in difference
