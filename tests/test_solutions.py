"""The reference passes every check that exists, in process and through the CLI."""
import json

import pytest

from grader import exercises
from grader.harness import run_check
from grader.verdict import format_text
from tests.conftest import run_grader

READY = [e for e in exercises.EXERCISES if e.check is not None]


@pytest.mark.parametrize("exercise", READY, ids=lambda e: e.id)
def test_solutions_pass(exercise):
    verdict = run_check(exercise, "solutions", seed=0)
    assert verdict.passed, format_text(verdict, verbose=True)


def test_cli_passes_solutions_and_prints_json():
    result = run_grader("check", *[e.id for e in READY], "--impl", "solutions", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["passed"] is True
    assert [c["exercise"] for c in report["checks"]] == [e.id for e in READY]
    assert all(c["status"] == "passed" for c in report["checks"])
