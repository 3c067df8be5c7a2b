"""The replay contract (grader/checks/harness.py): every check asks for the same calls, with
the same arguments, each time it runs on the same seed. Proved able to fail on a check that
draws unseeded input; and where the decider's replay does not match a runner's records, it
checks the reference too, and names a grader bug only when the reference mismatches as well."""
from dataclasses import replace
from pathlib import Path

import pytest

import grader.checks.max_fn
from grader import exercises
from grader.decider import run
from grader.studies.in_process import first_difference, replayed
from grader.verdict import ERROR
from tests import nondeterministic_check
from tests.conftest import ROOT


# In -m slow: the notebooks' check cells (in the test command) replay every check, matching each
# call the check asks for against the recorded run's by index and digest (a mismatch fails it), so
# the default run keeps only the proof that a difference is caught; this names where two runs part.
@pytest.mark.slow
@pytest.mark.parametrize("exercise", exercises.EXERCISES, ids=lambda e: e.id)
def test_every_check_asks_the_same_calls_twice(exercise):
    assert first_difference(exercise, "solutions", seed=0) is None


def test_a_check_with_unseeded_input_is_caught():
    broken = replace(exercises.get("max_fn"), check="tests.nondeterministic_check")
    difference = first_difference(broken, "solutions", seed=0)
    assert difference is not None and "digest" in difference
    # and the replay test_solutions_pass makes of every check fails on it too
    assert not replayed(broken, "solutions", seed=0).passed


def runners_started(monkeypatch) -> list[str]:
    """The implementations of the runners started from now on, in order."""
    started, decide = [], run.Runner.decide

    def spied(runner, *args, **kwargs):
        started.append(runner.impl)
        return decide(runner, *args, **kwargs)

    monkeypatch.setattr(run.Runner, "decide", spied)
    return started


def test_a_mismatch_the_learners_code_causes_stays_the_learners(monkeypatch):
    """The file skews the runner's digests: the reference, run again, matches."""
    started = runners_started(monkeypatch)
    learner = str(ROOT / "tests" / "hostile" / "skews_call_digest.py")
    verdict, = run.run_isolated(["max_fn"], learner, 0, sandboxed=False)
    assert started == [learner, run.REFERENCE]
    assert verdict.status == ERROR and "is for other arguments than the grader passed" in verdict.summary
    assert "grader bug" not in verdict.summary


def test_a_mismatch_planted_in_the_check_is_a_grader_bug(monkeypatch, tmp_path):
    """The decider's max_fn check draws unseeded input: no runner's records match it."""
    monkeypatch.setattr(grader.checks.max_fn, "run", nondeterministic_check.run)
    started = runners_started(monkeypatch)
    learner = str(tmp_path / "my_max_fn.py")
    Path(learner).write_text("from solutions.residual import max_fn\n")
    verdict, = run.run_isolated(["max_fn"], learner, 0, sandboxed=False)
    assert started == [learner, run.REFERENCE]
    assert verdict.status == ERROR and "grader bug" in verdict.summary, verdict.summary
    assert "is for other arguments than the grader passed" in verdict.summary
