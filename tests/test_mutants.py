"""Every mutant in tests/mutants/ fails its check under the default seed, and a mutant whose
bug is a usual mistake (grader/judges/mistakes.py) is named in the verdict.

A mutant's file holds what is expected of it beyond failing (grader/studies/mutants.py):
``NAMED``, the words its verdict's text must give its mistake; ``FIRST_HINT``, words the hint
of its first failing property must hold; ``SLOW``, why it runs only with -m slow (CI's time):
the longest loop mutants, where the same exercise keeps other mutants in the default run."""
from pathlib import Path

import pytest

from grader import exercises
from grader.studies import mutants
from grader.studies.in_process import replayed
from grader.verdict import FAILED, format_text

TESTS = Path(__file__).parent
MUTANTS = mutants.all_mutants(TESTS / "mutants")


@pytest.mark.parametrize("mutant", [pytest.param(m, marks=pytest.mark.slow) if m.slow else m
                                    for m in MUTANTS], ids=lambda m: m.name)
def test_mutant_fails_its_check(mutant, tmp_path):
    assert mutant.description, "a mutant says in its docstring what its bug is"
    path = mutants.build(mutant, tmp_path)
    verdict = replayed(exercises.get(mutant.exercise), str(path), seed=0)
    assert verdict.status == FAILED, (verdict.status, verdict.summary)
    assert verdict.findings, "a failure names the property that failed"
    if mutant.named:
        assert mutant.named in verdict.findings[0].message, format_text(verdict, verbose=True)
    if mutant.first_hint:
        assert mutant.first_hint in verdict.findings[0].hint, format_text(verdict, verbose=True)


def test_every_named_mistake_has_its_mutant():
    """A mistake's words live in its mutant's file; a slow mutant holds none, and every
    exercise keeps mutants in the default run. Patched valid variants and the audit's
    mutants share the loader but are not run here: they hold no expectations to ignore."""
    others = mutants.all_mutants(TESTS / "audit_mutants") + [
        mutants.load(p) for p in sorted((TESTS / "valid_variants").glob("*/*.py"))]
    assert others and not [m.name for m in others if m.named or m.first_hint or m.slow]
    held = [m.name for m in MUTANTS if m.slow and (m.named or m.first_hint)]
    assert not held, f"a mutant whose verdict's words are held runs by default: {held}"
    for exercise in {m.exercise for m in MUTANTS}:  # every exercise keeps mutants in the default run
        assert any(m.exercise == exercise and not m.slow for m in MUTANTS), exercise


@pytest.mark.parametrize("text, error", [
    ('NAMED = 3', "NAMED must be a non-empty string, the words its verdict must use for its mistake; got 3"),
    ('NAMED = ("the mask", "transposed")', "NAMED must be a non-empty string"),
    ('FIRST_HINT = ""', "FIRST_HINT must be a non-empty string, the words the hint of its first failing"),
    ('SLOW = True', "SLOW must be a non-empty string, why it runs only under -m slow; got True"),
    ('FIRST_HINTS = "the words"', "unknown field FIRST_HINTS; a mutant's fields are EXERCISE, EXERCISES, FIRST_HINT"),
], ids=["named_int", "named_tuple", "first_hint_empty", "slow_bool", "misspelt_field"])
def test_a_mutant_expectation_of_the_wrong_form_is_a_clear_error(tmp_path, text, error):
    path = tmp_path / "bad_mutant.py"
    path.write_text(f'"""A bug."""\nEXERCISE = "max_fn"\nMODULE = "residual"\nPATCHES = []\n{text}\n')
    with pytest.raises(ValueError) as raised:
        mutants.load(path)
    assert str(raised.value).startswith(f"{path}: ") and error in str(raised.value), raised.value
    path.write_text(path.read_text().replace(text, 'NAMED = "the mask transposed"'))
    assert mutants.load(path).named == "the mask transposed"  # the same file, well formed, loads


def test_every_exercise_has_a_mutant():
    covered = {m.exercise for m in MUTANTS}
    every = {e.id for e in exercises.EXERCISES}
    assert every <= covered, f"no mutant for {every - covered}"
