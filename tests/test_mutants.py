"""Every mutant in tests/mutants/ fails its check under the default seed."""
from pathlib import Path

import pytest

from grader import exercises
from grader.selftest import mutants
from grader.selftest.in_process import replayed
from grader.verdict import FAILED

MUTANTS = mutants.all_mutants(Path(__file__).parent / "mutants")


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_mutant_fails_its_check(mutant, tmp_path):
    assert mutant.description, "a mutant says in its docstring what its bug is"
    path = mutants.build(mutant, tmp_path)
    verdict = replayed(exercises.get(mutant.exercise), str(path), seed=0)
    assert verdict.status == FAILED, (verdict.status, verdict.summary)
    assert verdict.findings, "a failure names the property that failed"


def test_every_exercise_has_a_mutant():
    covered = {m.exercise for m in MUTANTS}
    every = {e.id for e in exercises.EXERCISES}
    assert every <= covered, f"no mutant for {every - covered}"
