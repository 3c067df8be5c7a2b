"""CONTRIBUTING.md's add-an-exercise steps, followed for every exercise of
``grader.exercises.EXERCISES``: its lesson's notebook and check cell, its check with ``run``, every judge name
a check uses resolving, the reference's and the lesson's functions, a mutant, and the count of
its properties; README.md's Lessons table is the one ``grader.release.readme`` writes from them.
Each rule is also shown to fail on a planted break."""
import ast
import importlib
import json
from pathlib import Path

import pytest

from grader import exercises
from grader.release import readme
from grader.studies import mutants
from notebooks.conftest import CHECK_CELL
from tests.conftest import ROOT


def missing_steps(exercise: exercises.Exercise, root: Path, mutant_exercises: set[str]) -> list[str]:
    """The add-an-exercise steps ``exercise`` lacks in the course at ``root``."""
    missing = []
    if exercise.lesson not in exercises.LESSONS:
        missing.append(f"a title for lesson {exercise.lesson} in grader/exercises.py's LESSONS")
    notebooks = list((root / "notebooks").glob(f"{exercise.lesson:02d}_*.ipynb"))
    if not notebooks:
        missing.append(f"a notebook notebooks/{exercise.lesson:02d}_*.ipynb")
    elif not any((match := CHECK_CELL.fullmatch("".join(cell["source"]).strip())) and match.group(1) == exercise.id
                 for cell in json.loads(notebooks[0].read_text())["cells"] if cell["cell_type"] == "code"):
        # the test command's one run of the reference's check: notebooks/conftest.py asserts it
        missing.append(f'a cell check("{exercise.id}") in {notebooks[0].name}')
    check = root / (exercise.check.replace(".", "/") + ".py")
    if not check.is_file() or "run" not in {n.name for n in ast.parse(check.read_text()).body
                                            if isinstance(n, ast.FunctionDef)}:
        missing.append(f"a check {exercise.check} with run(check)")
    for package in ("solutions", "lessons"):
        source = root / package / f"{exercise.module}.py"
        defined = {n.name for n in ast.parse(source.read_text()).body
                   if isinstance(n, (ast.FunctionDef, ast.ClassDef))} if source.is_file() else set()
        missing += [f"{package}/{exercise.module}.py defines {name}" for name in exercise.functions if name not in defined]
    if exercise.id not in mutant_exercises:
        missing.append(f"a mutant in tests/mutants/ whose EXERCISE is {exercise.id}")
    if exercise.id not in exercises.COMPLETE_PROPERTIES:
        missing.append("its count in grader/exercises.py's COMPLETE_PROPERTIES")
    return missing


def judge_names(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, name) of every judge a check names: ``check.judge("name", ...)``, and a
    ``judge="name"`` argument or default passed on to it."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "judge" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            found.append((node.lineno, node.args[0].value))
        elif isinstance(node, ast.keyword) and node.arg == "judge" and isinstance(node.value, ast.Constant):
            found.append((node.value.lineno, node.value.value))
        elif isinstance(node, ast.FunctionDef):
            arguments = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + node.args.defaults + node.args.kw_defaults
            found += [(d.lineno, d.value) for a, d in zip(arguments, defaults)
                      if a.arg == "judge" and isinstance(d, ast.Constant) and isinstance(d.value, str)]
    return found


def unresolved_judges(checks: Path) -> list[str]:
    """"file:line name" for each judge name in ``checks`` that names no function of
    ``grader.judges`` (a bare name is the check's own judge module's)."""
    unresolved = []
    for path in sorted(checks.glob("*.py")):
        for line, name in judge_names(ast.parse(path.read_text())):
            module, _, function = name.rpartition(".")
            try:
                found = hasattr(importlib.import_module(f"grader.judges.{module or path.stem}"), function)
            except ImportError:
                found = False
            if not found:
                unresolved.append(f"{path.name}:{line} {name}")
    return unresolved


MUTANT_EXERCISES = {e for m in mutants.all_mutants(ROOT / "tests" / "mutants") for e in m.exercises}


@pytest.mark.parametrize("exercise", exercises.EXERCISES, ids=lambda e: e.id)
def test_every_exercise_has_each_step(exercise):
    assert missing_steps(exercise, ROOT, MUTANT_EXERCISES) == []


def test_every_judge_a_check_names_resolves():
    assert unresolved_judges(ROOT / "grader" / "checks") == []


def test_the_readme_lessons_table_is_what_grader_release_readme_writes(capsys):
    assert readme.main(["--check"]) == 0, capsys.readouterr().err


def test_a_stale_lessons_table_is_reported_with_the_command_to_run(tmp_path, capsys):
    """A table that misses max_fn: --check names the row and the command and writes nothing;
    the command rewrites the table alone."""
    around = ("# A course\n\n## Lessons\n\n" + readme.BEGIN + "\n", "\n" + readme.END + "\n\n## Speed\n\nkept\n")
    stale, fresh = (around[0] + table + around[1] for table in (readme.table().replace("`max_fn`, ", ""), readme.table()))
    path = tmp_path / "README.md"
    path.write_text(stale)
    assert readme.main([str(path), "--check"]) == 1
    said = capsys.readouterr().err
    row = next(line for line in readme.table().splitlines() if line.startswith("| 1. "))
    assert f"\n-{row.replace('`max_fn`, ', '')}\n+{row}\n" in said
    assert said.endswith(f"Run `python -m grader.release.readme {path}` to rewrite it.\n")
    assert path.read_text() == stale
    assert readme.main([str(path)]) == 0 and path.read_text() == fresh
    assert readme.main([str(path), "--check"]) == 0


def test_a_readme_without_its_markers_or_a_lesson_without_a_title_is_refused(monkeypatch):
    with pytest.raises(readme.TableError, match="between one line .* found 1 and 0"):
        readme.rewritten(f"## Lessons\n\n{readme.BEGIN}\n| 1. The residual |\n", readme.HEADER)
    monkeypatch.delitem(exercises.LESSONS, 1)
    with pytest.raises(readme.TableError, match="lesson 1 has exercises but no title"):
        readme.table()


def test_a_missing_step_is_named(tmp_path, monkeypatch):
    """A course whose notebooks, lesson and mutants lack max_fn, its lesson untitled: each step is named."""
    monkeypatch.delitem(exercises.LESSONS, 1)
    (tmp_path / "notebooks").mkdir()
    for package, body in (("solutions", "def max_fn(x):\n    return x\n"), ("lessons", "")):
        (tmp_path / package).mkdir()
        (tmp_path / package / "residual.py").write_text(body)
    (tmp_path / "grader" / "checks").mkdir(parents=True)
    (tmp_path / "grader" / "checks" / "max_fn.py").write_text("def start(check):\n    pass\n")
    assert missing_steps(exercises.get("max_fn"), tmp_path, set()) == [
        "a title for lesson 1 in grader/exercises.py's LESSONS", "a notebook notebooks/01_*.ipynb",
        "a check grader.checks.max_fn with run(check)", "lessons/residual.py defines max_fn",
        "a mutant in tests/mutants/ whose EXERCISE is max_fn"]
    (tmp_path / "notebooks" / "01_max_fn.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "source": ['check("speculative_decoding_verify")']}]}))
    assert 'a cell check("max_fn") in 01_max_fn.ipynb' in missing_steps(exercises.get("max_fn"), tmp_path, set())


def test_a_judge_name_that_resolves_nowhere_is_named(tmp_path):
    (tmp_path / "max_fn.py").write_text(
        "def run(check, judge='loop_properties.greedy'):\n"
        "    check.judge('compare', 1)\n    check.judge('comparee', 2)\n"
        "    helper(check, judge='kv_cache.discipline_of_nothing')\n")
    assert unresolved_judges(tmp_path) == ["max_fn.py:3 comparee", "max_fn.py:4 kv_cache.discipline_of_nothing"]
