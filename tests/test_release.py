"""lessons/ is written from solutions/ (grader/release/lessons.py): one source for every
exercise, its stub, its docstring and the code provided around it. `grader release` writes
the course for learners, with or without solutions/, and `grader autograder` a Gradescope
autograder (grader/release/)."""
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader import exercises
from grader.gradebook import SANDBOXED, UNSANDBOXED
from grader.release import autograder, course, gradescope, student
from grader.release import lessons as release
from tests.conftest import ROOT, run_grader, shipped_lessons
from tests.test_grade import SANDBOX, finished_lessons, write_submission

SOURCE = '''"""A module."""
import torch

# BEGIN SOLUTION
from solutions.residual import max_fn
# LESSON
# from lessons.residual import max_fn
#
# # a note for the learner
# END SOLUTION


# BEGIN SOLUTION
@torch.no_grad()
# END SOLUTION
def f(x):
    """Its contract, which may quote a marker:
    # BEGIN SOLUTION
    """
    # BEGIN SOLUTION
    return max_fn(x)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION
'''

LESSON = '''"""A module."""
import torch

from lessons.residual import max_fn

# a note for the learner


def f(x):
    """Its contract, which may quote a marker:
    # BEGIN SOLUTION
    """
    raise NotImplementedError
'''


def test_the_shipped_lessons_are_written_from_solutions():
    """Every file of lessons/ equals what the generator writes: git's HEAD copy (what the
    course ships), or the working copy where it was just written and not yet committed.
    A learner's work changes neither, so it never turns this red."""
    written, shipped = release.lessons(), shipped_lessons()
    assert set(shipped) <= set(written), f"lessons without a module in solutions/: {set(shipped) - set(written)}"
    working = {name: path.read_text() for name in written if (path := ROOT / "lessons" / name).is_file()}
    stale = [name for name, text in written.items() if text not in (shipped.get(name), working.get(name))]
    assert not stale, f"lessons/ {stale} differ from solutions/: run `python -m grader.release.lessons`"


def test_a_lesson_keeps_the_shared_text_and_its_own_part():
    assert release.lesson_source(SOURCE) == LESSON


@pytest.mark.parametrize("source, error", [
    ("# END SOLUTION\n", "line 1: '# END SOLUTION' cannot stand outside a block"),
    ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n", "line 2: '# BEGIN SOLUTION' cannot stand inside its '# BEGIN"),
    ("# BEGIN SOLUTION\nx = 1\n", "'# BEGIN SOLUTION' has no '# END SOLUTION'"),
    ("# BEGIN SOLUTION\n# LESSON\nx = 1\n# END SOLUTION\n", "line 3: a lesson line must start with '# '"),
    ("def f():\n    # BEGIN SOLUTION\n    pass\n# END SOLUTION\n", "line 4: '# END SOLUTION' is not indented"),
])
def test_misplaced_markers_are_named(source, error):
    with pytest.raises(release.MarkerError, match=error):
        release.lesson_source(source)


def test_the_command_writes_the_lessons_without_torch(tmp_path):
    """``python -m grader.release.lessons FOLDER``, importable where torch is not installed."""
    probe = (f"import runpy, sys\nsys.argv = ['lessons', {str(tmp_path)!r}]\n"
             "runpy.run_module('grader.release.lessons', run_name='__main__')\n"
             "assert 'torch' not in sys.modules, 'torch was imported'\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert {p.name: p.read_text() for p in tmp_path.glob("*.py")} == release.lessons()


def test_a_release_without_solutions_holds_the_lessons_and_nothing_of_the_reference(tmp_path):
    """lessons/ as the generator writes it, the notebooks as committed, no file of solutions/
    nor of what runs on it; `grader list` runs there and `grader check` says why it cannot.
    The lessons import there, and a notebook's first cell runs on them with one line saying
    the reference is absent, where its `check(...)` cells say why they cannot."""
    out = tmp_path / "release"
    student.write(out, with_solutions=False)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == {name for name in course.contents() if not name.startswith(student.REFERENCE)}
    assert not [name for name in files if "solutions" in name.split("/") or name.startswith(student.REFERENCE)]
    assert {p.name: p.read_text() for p in (out / "lessons").iterdir()} == release.lessons()
    for notebook in (name for name in files if name.endswith(".ipynb")):
        assert (out / notebook).read_bytes() == (course.committed(notebook) or (ROOT / notebook).read_bytes())
    there = {"cwd": out, "capture_output": True, "text": True, "timeout": 120,
             "env": {**{k: v for k, v in os.environ.items() if k != "COURSE_IMPL"},  # CI's choice of the
                     # reference, which a learner's release has not
                     "PYTHONPATH": str(out), "GRADER_STATE_DIR": str(tmp_path / "state")}}
    listing = subprocess.run([sys.executable, "-m", "grader", "list"], **there)
    assert listing.returncode == 0, listing.stderr
    statuses = {line.split()[1]: line for line in listing.stdout.splitlines()[1:] if line[:1].isdigit()}
    assert set(statuses) == set(exercises.BY_ID) and all("not started" in s for s in statuses.values()), listing.stdout
    checking = subprocess.run([sys.executable, "-m", "grader", "check", "max_fn"], **there)
    assert checking.returncode == 1 and "needs the course's reference, solutions/" in checking.stderr, checking.stderr
    learning = subprocess.run([sys.executable, "-c", WITHOUT_REFERENCE], **there)
    assert learning.returncode == 0, learning.stderr
    said = learning.stdout.splitlines()
    assert said == ["The course's reference (solutions/) is not in this release: these cells run your own "
                    "lessons/, and a step you have not written yet raises NotImplementedError.",
                    student.needs_reference("`check(...)`")], learning.stdout
    first_cells = subprocess.run([sys.executable, "-c", FIRST_CELLS], **{
        **there, "timeout": 600, "env": {**there["env"], "MPLBACKEND": "Agg", "HF_HUB_OFFLINE": "1"}})
    assert first_cells.returncode == 0, first_cells.stderr
    ran = dict(line.split(": ", 1) for line in first_cells.stdout.splitlines() if line.startswith("notebooks/"))
    declared = {name for name in files if name.endswith(".ipynb")
                and "course(needs_reference=True)" in first_code_cell(out / name)}
    assert set(ran) == {name for name in files if name.endswith(".ipynb")}
    assert {name for name, what in ran.items() if what != "ran"} == declared, ran  # the others run
    assert all(ran[name].startswith("NeedsReference: This notebook runs the course's reference") for name in declared)


def first_code_cell(notebook: Path) -> str:
    return next("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code")


FIRST_CELLS = """
import glob, json, sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
for name in sorted(glob.glob("notebooks/*.ipynb")):  # each notebook's first cell, as a learner's kernel runs it
    cells = json.load(open(name))["cells"]
    source = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    try:
        exec(compile(source, name, "exec"), {"__name__": "__main__"})
        print(f"{name}: ran")
    except Exception as error:
        print(f"{name}: {type(error).__name__}: {error}")
"""


WITHOUT_REFERENCE = """
import importlib, importlib.util, sys
# the course installed in editable mode would find the checkout's solutions/: only the release's files count
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
for loop in ("autoregressive", "speculative", "ngram", "fast", "batched", "trees"):
    importlib.import_module(f"lessons.{loop}")  # their default processors are the learner's own
from grader.notebook import check, course, lesson
impl, fast = course(), lesson("fast")  # as a notebook's first cell: the line is said once
assert importlib.util.find_spec("solutions") is None
assert impl.max_fn is importlib.import_module("lessons.residual").max_fn  # the learner's, stub or not
assert fast.StaticModel is importlib.import_module("lessons.fast").StaticModel
print(repr(check("max_fn")))
"""


def test_a_release_with_solutions_is_the_course_and_reads_back_without_git(tmp_path):
    """Every file of the course, scripts still executable; the release, a folder without git,
    lists its own files less what its .gitignore names."""
    out = tmp_path / "release"
    student.write(out)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == sorted(course.contents())
    assert (out / "solutions" / "residual.py").read_text() == (ROOT / "solutions" / "residual.py").read_text()
    assert os.access(out / ".ci" / "run", os.X_OK)
    for ignored in ("grader/__pycache__/cli.cpython-311.pyc", "my.egg-info/PKG-INFO", "docs/figures/plot.tmp"):
        (out / ignored).parent.mkdir(parents=True, exist_ok=True)
        (out / ignored).write_text("")
    assert course.listed(out) == files


def test_a_release_goes_into_a_new_folder_outside_the_course(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    with pytest.raises(course.ReleaseError, match="not an empty folder"):
        student.write(tmp_path / "used")
    with pytest.raises(course.ReleaseError, match="inside the course's folder"):
        student.write(ROOT / "build" / "release")
    with pytest.raises(course.ReleaseError, match="inside the course's folder"):
        autograder.build(ROOT / "autograder.zip", 1, [])


def unpacked(archive: Path, folder: Path) -> Path:
    """The zip unpacked as Gradescope does it, into ``folder/source``, modes kept; returns ``folder``."""
    with zipfile.ZipFile(archive) as opened:
        for entry in opened.infolist():
            path = Path(opened.extract(entry, folder / "source"))
            path.chmod(entry.external_attr >> 16 & 0o777)
    return folder


def test_the_autograder_grades_in_gradescopes_layout(tmp_path):
    """The zip's run_autograder, in folders laid out as Gradescope's, on a correct, a wrong and
    a hostile submission (one that looks for the reference, which the zip holds) and one
    without lessons/, all at once: each gets its own results.json."""
    archive = tmp_path / "autograder.zip"
    built = run_grader("autograder", str(archive), "--exercises", "max_fn", *SANDBOX)
    assert built.returncode == 0, built.stderr
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        assert re.search(r"--seed \d+ --exercises max_fn\b", opened.read("run_autograder").decode())
    assert {"setup.sh", "run_autograder", "course/solutions/residual.py", "course/grader/cli.py"} <= set(names)
    assert not [n for n in names if n.startswith(("course/tests/", "course/notebooks/", "course/scripts/"))]
    done = finished_lessons()
    handed_in = {"correct": done,
                 "wrong": dict(done, **{"residual.py": done["residual.py"].replace("x.clamp(min=0)", "x")}),
                 "hostile": dict(done, **{"residual.py": (ROOT / "tests/hostile/reads_reference.py").read_text()})}
    folders = {name: unpacked(archive, tmp_path / name) for name in [*handed_in, "empty"]}
    for name, files in handed_in.items():
        write_submission(folders[name] / "submission" / "my-repo", files)  # a zip of a folder: one level down
    (folders["empty"] / "submission").mkdir()
    (folders["empty"] / "submission" / "residual.py").write_text(done["residual.py"])
    env = {**os.environ, "AUTOGRADER_PYTHON": sys.executable}
    running = {name: subprocess.Popen([str(folder / "source" / "run_autograder")], stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, env={**env, "AUTOGRADER_ROOT": str(folder)})
               for name, folder in folders.items()}
    said = {name: process.communicate(timeout=300)[0] for name, process in running.items()}
    results = {name: json.loads((folder / "results" / "results.json").read_text()) for name, folder in folders.items()}
    assert [process.returncode for process in running.values()] == [0] * 4, said
    for name, expected in {"correct": "passed", "wrong": "failed", "hostile": "failed"}.items():
        test, = results[name]["tests"]
        assert (test["name"], test["status"]) == ("max_fn", expected), (name, results[name], said[name])
        assert results[name]["score"] == (1.0 if expected == "passed" else 0.0)
    assert results["hostile"]["output"] == (UNSANDBOXED if SANDBOX else SANDBOXED)
    assert results["empty"] == {"score": 0.0, "output": gradescope.NO_LESSONS}


def test_each_gradescope_submission_draws_its_own_values(tmp_path):
    metadata = tmp_path / "submission_metadata.json"
    seeds = []
    for submission in (123, 124, 123):
        metadata.write_text(json.dumps({"id": submission}))
        seeds.append(gradescope.submission_seed(7, metadata))
    assert seeds[0] == seeds[2] != seeds[1]
    absent = tmp_path / "absent.json"  # graded outside Gradescope
    assert gradescope.submission_seed(7, absent) != gradescope.submission_seed(8, absent)


def readme_test_command() -> str:
    """The README's test command, less its install (``pip install … &&``): this environment has
    the course's dependencies, and the command runs the course it finds on PYTHONPATH."""
    line = next(line for line in (ROOT / "README.md").read_text().splitlines() if "python -m pytest" in line)
    return line.split("&&", 1)[1].strip()


@pytest.mark.slow
def test_a_release_passes_the_readmes_test_command_in_a_fresh_clone(tmp_path):
    """The release committed to a repository of its own, cloned afresh, passes the README's test
    command there: the whole suite and the notebooks, about 20 minutes on 2 cores."""
    student.write(tmp_path / "release")
    git = ["git", "-c", "user.name=course", "-c", "user.email=course@example.org"]
    for step in (["init", "-q"], ["add", "--all"], ["commit", "-q", "-m", "the release"]):
        subprocess.run([*git, *step], cwd=tmp_path / "release", check=True, timeout=120)
    subprocess.run([*git, "clone", "-q", "release", "clone"], cwd=tmp_path, check=True, timeout=120)
    clone = tmp_path / "clone"
    python = Path(sys.executable).parent  # the command's `python`: this environment's
    env = {**os.environ, "PYTHONPATH": str(clone), "PATH": f"{python}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(readme_test_command(), shell=True, cwd=clone, env=env, capture_output=True, text=True,
                            timeout=3600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
