"""The notebooks as learners open them: clean stored outputs, prose that follows from the
numbers printed above it, a run at any stage of the lessons, and the extra that brings
Jupyter. (CI executes them on the reference with nbval too.)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import nbformat
import pytest
from nbclient import NotebookClient

from grader import exercises
from tests.conftest import PRISTINE, ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NOISE = {"an object's address": r" at 0x[0-9a-f]+>", "profiler log lines": r"USDT:|STAGE:",
         "a tqdm warning": r"TqdmWarning|IProgress not found",
         "a progress bar": r"\d+%\|"}


def outputs(path) -> list[str]:
    """The text of every stored output of a notebook (streams, results, errors)."""
    texts = []
    for cell in json.loads(path.read_text())["cells"]:
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
                         + "".join(out.get("traceback", [])))
    return texts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_outputs_are_clean(path):
    for what, pattern in NOISE.items():
        found = [t for t in outputs(path) if re.search(pattern, t)]
        assert not found, f"{path.name} shows {what}: {found[0][:200]}"


# The stub runs of all but notebook 00 (the first) are in `-m slow`, to keep the test command
# within CI's time: notebook 10 trains drafters (about 3 minutes), 06–09 and 11–12 time loops
# or grow trees (44 to 124 s each), 03 took 54 s and 01, 02, 04 and 05 15 to 45 s each. Every
# notebook's reference run stays in the test command (nbval); notebook 03 also runs on the
# stubs in a release without the reference (tests/test_release.py), and notebook 11's
# learner-state cells are held by
# test_notebook_11_runs_the_learners_finished_loop_whatever_its_default_processor.
SLOW_ON_STUBS = {"01_max_fn", "02_verification", "03_speculative_generate", "04_kv_cache", "05_ngram",
                 "06_performance", "07_fast_loop", "08_batches", "09_trees", "10_distill", "11_eagle", "12_suffix"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_ON_STUBS else p
                                  for p in NOTEBOOKS], ids=lambda p: p.stem)
def test_a_notebook_runs_top_to_bottom_with_every_lesson_unfinished(path, pristine_lessons, monkeypatch):
    """The lessons as shipped (all stubs): every cell runs, the calls of unfinished steps
    go to the reference with a printed line saying so, and each check() shows the stub's
    true state (not started), never a pass."""
    monkeypatch.setenv("COURSE_IMPL", PRISTINE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(pristine_lessons),
                                                                    os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # raises on an error
    printed = {index: "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                              for o in cell.get("outputs", []))
               for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"}
    assert any("is not finished" in text and "uses the reference's" in text for text in printed.values())
    checks = [i for i in printed if re.search(r"^check\(", notebook.cells[i].source, re.M)]
    for index in checks:
        assert "not started" in printed[index] and "passed" not in printed[index], printed[index]


def test_notebook_05_conclusion_follows_from_its_numbers():
    """The sentence on where the pair's c falls is printed from the crossings and c the
    notebook computed, so it agrees with them whatever the machine measured."""
    text = "\n".join(outputs(ROOT / "notebooks" / "05_ngram.ipynb"))
    c = float(re.search(r"a drafter forward costs c = ([\d.]+)", text).group(1))
    for name in ("greedy", "T = 1"):
        crossings = [float(x) for x in re.findall(rf"^{re.escape(name)} +\S.*cheaper for c > ([\d.]+)",
                                                   text, re.M)]
        sentence = re.search(rf"^{re.escape(name)}: the crossing \(c = ([\d.]+) to ([\d.]+)\) lies (\w+)",
                             text, re.M)
        assert len(crossings) == 2 and sentence, text[-1500:]
        low, high, side = float(sentence[1]), float(sentence[2]), sentence[3]
        assert (low, high) == (min(crossings), max(crossings))
        assert side == ("below" if high < c else "above" if low > c else "on")


def test_the_notebooks_extra_brings_jupyter_and_the_readme_says_how_to_open_them():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.match(r"[\w-]+", requirement)[0] for requirement in extras["notebooks"]}
    assert {"jupyterlab", "nbconvert", "ipywidgets", "ipykernel"} <= names
    assert "pip install -e '.[notebooks]' && jupyter lab notebooks/" in (ROOT / "README.md").read_text()



@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_outputs_are_what_a_learner_sees_on_opening(path):
    """Stored by scripts/store_notebook_outputs.py on the shipped stubs: each check() cell
    says "not started", never "passed" (and nbval does not compare it with the reference's
    verdict); nbval's markers are cell tags, not code."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        assert "NBVAL" not in cell.source, f"{path.name}: a marker in the code, not a cell tag"
        if re.search(r"^check\(", cell.source, re.M):
            shown = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            assert "not started" in shown and "passed" not in shown, f"{path.name}: {shown[:300]}"
            assert "nbval-check-output" not in cell.metadata.get("tags", []), f"{path.name}: {cell.source}"


def introduction_exercises(path) -> list[str]:
    """The exercises a notebook's introduction (its first cell) lists: each `grader check ID`
    it names, in the order first named."""
    first = nbformat.read(path, as_version=4).cells[0]
    return list(dict.fromkeys(re.findall(r"`grader check (\w+)`", first.source)))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebooks_introduction_lists_its_lessons_exercises_in_order(path):
    """The introduction names every exercise of the notebook's lesson (`grader.exercises`),
    as `grader check ID`, in the order the lesson takes them, and no other."""
    lesson = int(path.stem.split("_")[0])
    expected = [exercise.id for exercise in exercises.EXERCISES if exercise.lesson == lesson]
    found = introduction_exercises(path)
    assert found == expected, f"{path.name}'s introduction lists {found}, lesson {lesson} has {expected}"


def test_an_introduction_out_of_order_or_short_fails(tmp_path):
    """The test above fails on the introduction notebook 11 had: four of seven, one out of place."""
    notebook = nbformat.read(ROOT / "notebooks" / "11_eagle.ipynb", as_version=4)
    notebook.cells[0].source = ("`grader check deterministic_children`, `grader check feature_draft`, "
                                "`grader check eagle_generate`, `grader check eagle_loss`")
    path = tmp_path / "11_eagle.ipynb"
    nbformat.write(notebook, path)
    with pytest.raises(AssertionError, match="lesson 11 has"):
        test_a_notebooks_introduction_lists_its_lessons_exercises_in_order(path)


@pytest.fixture
def lesson_11_before_lesson_0(pristine_lessons, tmp_path, monkeypatch) -> str:
    """A learner's package, for notebooks run on it: lesson 11 written (the reference's
    eagle.py), taking lessons 1–9's steps from the reference meanwhile as its header says,
    and its processors from lesson 0, still the shipped stubs. Returns the package's name,
    set as the notebooks' implementation."""
    package = tmp_path / "partial_lessons"
    package.mkdir()
    for path in (pristine_lessons / PRISTINE).glob("*.py"):
        (package / path.name).write_text(re.sub(rf"\b{PRISTINE}\b", "partial_lessons", path.read_text()))
    written = (ROOT / "solutions" / "eagle.py").read_text()
    assert "from solutions.sampling import GreedyProcessor" in written
    (package / "eagle.py").write_text(written.replace("from solutions.sampling import", "from partial_lessons.sampling import"))
    monkeypatch.setenv("COURSE_IMPL", "partial_lessons")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    return "partial_lessons"


def test_notebook_11_runs_the_learners_finished_loop_whatever_its_default_processor(lesson_11_before_lesson_0):
    """Issue 46: right after `eagle_generate` passed its check, notebook 11 ran the reference's
    loop because the loop's default processor (lesson 0) was a stub. A default is no step the
    loop calls: the cell runs the learner's loop, passing the reference's processor, and says
    so; the reference stands in for lesson 0's own `autoregressive_generate` alone. (That the
    check passes on this state: tests/test_stubs.py grades it on stubs with the same walk.)"""
    path = ROOT / "notebooks" / "11_eagle.ipynb"
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    loop = next(cell for cell in code if "ids, rate = eagle.eagle_generate(prompt" in cell.source)
    notebook.cells = [code[0], loop]  # the set-up cell, then the loop
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    printed = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in loop.outputs)
    assert "`eagle_generate` is yours; its default `logits_processor` is not finished: " \
           "`GreedyProcessor.__call__` (lesson 0, `grader check processors`) still raises NotImplementedError, so " \
           "this cell passes the reference's `GreedyProcessor` as `logits_processor`." in printed, printed
    assert "`eagle_generate` is not finished" not in printed, printed
    assert "`autoregressive_generate` is not finished" in printed, printed
    assert printed.splitlines()[-2] == "True", printed  # the learner's loop gives the target's greedy text


def test_a_check_cell_on_the_reference_must_show_every_declared_property(tmp_path):
    """notebooks/conftest.py reads each check cell's text: a pass with all the exercise's declared
    properties, nothing else (max_fn's real verdicts, and its pass with one property fewer)."""
    from grader.studies.in_process import replayed
    from grader.verdict import format_text
    from notebooks.conftest import check_cell_problem

    exercise = exercises.get("max_fn")
    passed = format_text(replayed(exercise, "solutions", seed=0), timing=False)
    assert check_cell_problem("max_fn", passed) is None, passed
    no_clamp = tmp_path / "no_clamp.py"
    no_clamp.write_text((ROOT / "solutions" / "residual.py").read_text().replace("x.clamp(min=0)", "x"))
    failed = format_text(replayed(exercise, str(no_clamp), seed=0), timing=False)
    assert "did not pass" in check_cell_problem("max_fn", failed)
    fewer = passed.replace(f"all {exercise.properties} ", f"all {exercise.properties - 1} ")
    assert "COMPLETE_PROPERTIES says 6" in check_cell_problem("max_fn", fewer)
    assert "did not pass" in check_cell_problem("greedy_match", passed)  # another exercise's pass


def test_nbval_fails_a_check_cell_that_does_not_pass(tmp_path, monkeypatch):
    """The hook at work: nbval on a notebook whose check cell runs a course with max_fn's clamp
    left out (COURSE_IMPL names it) fails that cell, saying why; the notebook's other cell passes."""
    course = tmp_path / "unclamped_course"
    shutil.copytree(ROOT / "solutions", course, ignore=shutil.ignore_patterns("__pycache__"))
    residual = course / "residual.py"
    residual.write_text(residual.read_text().replace("x.clamp(min=0)", "x"))
    for path in course.glob("*.py"):
        path.write_text(re.sub(r"\bsolutions\b(?=[.\s])", "unclamped_course", path.read_text()))
    shutil.copy(ROOT / "notebooks" / "conftest.py", tmp_path / "conftest.py")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from grader import check"),
                                               nbformat.v4.new_code_cell('check("max_fn")')])
    nbformat.write(notebook, tmp_path / "unclamped.ipynb")
    monkeypatch.setenv("COURSE_IMPL", "unclamped_course")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax",
                             "--nbval-current-env", "-o", "addopts=", "unclamped.ipynb"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "1 failed, 1 passed" in result.stdout, result.stdout[-3000:] + result.stderr
    assert "COURSE_IMPL=unclamped_course: check('max_fn') did not pass" in result.stdout, result.stdout[-3000:]
