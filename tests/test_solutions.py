"""The reference passes every check that exists, in process and through the CLI.

The test command asserts the same through the notebooks: each check cell, run on the
reference in the sandbox, must show its exercise passed with its declared properties
(notebooks/conftest.py). So the in-process run of every check is in ``-m slow``: the quick
way to try a check or its count alone (``-m '' -k ID``)."""
import ast
import json

import pytest

from grader import exercises
from grader.studies.in_process import replayed
from grader.verdict import format_text
from tests.conftest import ROOT, run_grader, shipped_lessons

EXERCISES = list(exercises.EXERCISES)


@pytest.mark.slow  # 156 s of CI's items; the notebooks' check cells hold the same in the test command
@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.id)
def test_solutions_pass(exercise):
    verdict = replayed(exercise, "solutions", seed=0)
    assert verdict.passed, format_text(verdict, verbose=True)
    # partial credit's denominator is what a complete run evaluates: declared, and held to it here
    assert verdict.properties == exercise.properties, (
        f"{exercise.id}'s check evaluates {verdict.properties} properties on the reference, and "
        f"grader/exercises.py's COMPLETE_PROPERTIES says {exercise.properties}: set it to the count")


def test_cli_passes_solutions_and_prints_json():
    # one runner for several lessons' exercises through the CLI; each exercise's own pass is
    # its notebook check cell's (all of them here took 75 s of CI)
    selected = [exercises.get(e) for e in ("max_fn", "speculative_sampling", "greedy_match",
                                           "tree_attention", "eagle_loss")]
    result = run_grader("check", *[e.id for e in selected], "--impl", "solutions", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["passed"] is True
    assert [c["exercise"] for c in report["checks"]] == [e.id for e in selected]
    assert all(c["status"] == "passed" for c in report["checks"])


def top_level_names(source: str) -> set[str]:
    """The functions and classes a module defines (imports do not count)."""
    return {node.name for node in ast.parse(source).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


@pytest.mark.parametrize("module", sorted(p.name for p in (ROOT / "solutions").glob("[!_]*.py")))
def test_lessons_define_what_solutions_define(module):
    """Lessons and solutions keep identical module and function names (the README's
    layout), in the lessons as shipped (git's HEAD): a learner's own helpers in lessons/
    are theirs."""
    lessons = shipped_lessons()
    assert module in lessons, f"lessons/{module} is missing"
    assert top_level_names(lessons[module]) == top_level_names((ROOT / "solutions" / module).read_text())
