"""lessons/ is written from solutions/ (grader/release/lessons.py): one source for every
exercise, its stub, its docstring and the code provided around it. `grader release` writes
the course for learners, with or without solutions/, and `grader autograder` a Gradescope
autograder (grader/release/)."""
import ast
import dataclasses
import json
import os
import re
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

from grader import exercises
from grader.commands.listing import AUTOGRADERS
from grader.gradebook import SANDBOXED, UNSANDBOXED
from grader.release import autograder, course, gradescope, public, student
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
    """lessons/ as the generator writes it, the notebooks as committed, the public reference in
    place of solutions/ (every exercise's function a stub), nothing of what runs on the
    reference, the learners' README; `grader list` runs there and `grader check` gives a
    verdict. The lessons import there, and a notebook's first cell runs on them with one line
    saying the reference is absent, where its `check(...)` cells give verdicts."""
    out = tmp_path / "release"
    student.write(out, with_solutions=False)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert files == {name for name in course.contents() if not name.startswith(student.REFERENCE)} | set(public.sources())
    assert not [name for name in files if name.startswith(student.REFERENCE[1:])]
    assert {name: (out / name).read_text() for name in public.sources()} == public.sources()
    assert not answers_in(out / "solutions"), answers_in(out / "solutions")
    assert (out / "README.md").read_text() == student.readme(course.contents())
    assert {p.name: p.read_text() for p in (out / "lessons").iterdir()} == release.lessons()
    for notebook in (name for name in files if name.endswith(".ipynb")):
        assert (out / notebook).read_bytes() == (course.committed(notebook) or (ROOT / notebook).read_bytes())
    there = {"cwd": out, "capture_output": True, "text": True, "timeout": 120,
             "env": {**{k: v for k, v in os.environ.items() if k != "COURSE_IMPL"},  # CI's choice of the
                     # reference, which a learner's release has not
                     "PYTHONPATH": str(out), "GRADER_STATE_DIR": str(tmp_path / "state")}}
    listing = subprocess.run([sys.executable, "-m", *first_command(out / "README.md")], **there)  # grader list
    assert listing.returncode == 0, listing.stderr
    statuses = {line.split()[1]: line for line in listing.stdout.splitlines()[1:] if line[:1].isdigit()}
    assert set(statuses) == set(exercises.BY_ID) and all("not started" in s for s in statuses.values()), listing.stdout
    assert listing.stdout.rstrip().endswith(student.public_summary())
    learning = subprocess.run([sys.executable, "-c", WITHOUT_REFERENCE], **there)
    assert learning.returncode == 0, learning.stderr
    said = learning.stdout.splitlines()
    assert said[0] == ("The course's reference (solutions/) is not in this release: these cells run your own "
                       "lessons/, and a step you have not written yet raises NotImplementedError."), learning.stdout
    assert said[1:3] == ["· max_fn: not started", "  `max_fn` still raises NotImplementedError: write it, then "
                         "check again."], learning.stdout  # a verdict: its check ran, on the public reference
    assert said[3:] == [f"· {public.why_not_public('kv_cache')}", "False"], learning.stdout
    first_cells = subprocess.run([sys.executable, "-c", FIRST_CELLS], **{
        **there, "timeout": 600, "env": {**there["env"], "MPLBACKEND": "Agg", "HF_HUB_OFFLINE": "1"}})
    assert first_cells.returncode == 0, first_cells.stderr
    ran = dict(line.split(": ", 1) for line in first_cells.stdout.splitlines() if line.startswith("notebooks/"))
    declared = {name for name in files if name.endswith(".ipynb")
                and "course(needs_reference=True)" in first_code_cell(out / name)}
    assert set(ran) == {name for name in files if name.endswith(".ipynb")}
    assert {name for name, what in ran.items() if what != "ran"} == declared, ran  # the others run
    assert all(ran[name].startswith("NeedsReference: This notebook runs the course's reference") for name in declared)


def first_command(readme: Path) -> list[str]:
    """The words of a README's first command after its install (``pip install … && grader list``
    -> ``["grader", "list"]``)."""
    block = re.search(r"```bash\n(.*?)\n```", readme.read_text(), re.S).group(1)
    return block.split("&&")[-1].split()


def answers_in(folder: Path) -> list[str]:
    """The exercises' own functions (``Exercise.withheld``, a class's methods too, but its
    ``__init__`` and plumbing) that ``folder``'s modules define other than as a stub raising,
    or do not define at all."""
    found = []
    for exercise in exercises.EXERCISES:
        tree = ast.parse((folder / f"{exercise.module}.py").read_text())
        defined = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        for name in exercise.withheld:
            node = defined.get(name)
            functions = [node] if isinstance(node, ast.FunctionDef) else [  # a class's plumbing (__repr__) aside
                m for m in getattr(node, "body", []) if isinstance(m, ast.FunctionDef)
                and not (m.name.startswith("__") and m.name != "__call__")]
            if node is None or not all(stub_raises(f) for f in functions):
                found.append(f"{exercise.module}.{name}")
    return found


def stub_raises(function: ast.FunctionDef) -> bool:
    """Whether a function's body, its docstring aside, is one ``raise``."""
    body = [s for s in function.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


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
import importlib, importlib.util, os, sys
# the course installed in editable mode would find the checkout's solutions/: only the release's files count
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
for loop in ("autoregressive", "speculative", "ngram", "fast", "batched", "trees"):
    importlib.import_module(f"lessons.{loop}")  # their default processors are the learner's own
from grader.notebook import check, course, lesson
impl, fast = course(), lesson("fast")  # as a notebook's first cell: the line is said once
from grader import implementation
assert importlib.util.find_spec("solutions").origin.startswith(os.getcwd())  # the release's public one
assert not implementation.has_reference() and implementation.has_checks()
assert impl.max_fn is importlib.import_module("lessons.residual").max_fn  # the learner's, stub or not
assert fast.StaticModel is importlib.import_module("lessons.fast").StaticModel
checked = check("max_fn", "kv_cache")
print(repr(checked))
print(checked.passed)
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
        autograder.build(ROOT / "autograder.zip", bytes(32), [])


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
        assert re.search(r'--secret-file "\$root/source/secret" --exercises max_fn\b', opened.read("run_autograder").decode())
        assert "--index-url https://download.pytorch.org/whl/cpu torch==2.13.0" in opened.read("setup.sh").decode()
        assert opened.read("secret") == archive.with_suffix(".secret").read_bytes()  # kept beside it too
    assert str(archive.with_suffix(".secret")) in built.stdout
    assert {"setup.sh", "run_autograder", "secret", "course/solutions/residual.py", "course/grader/cli.py"} <= set(names)
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
        assert (test["name"], test["status"]) == (f"max_fn: {expected}", expected), (name, results[name], said[name])
        assert (results[name]["score"] == 1.0) == (expected == "passed")  # a failure may earn partial credit
        assert "grader check max_fn --seed " in test["output"] and results[name]["visibility"] == "visible"
    assert (UNSANDBOXED if SANDBOX else SANDBOXED) in results["hostile"]["output"]
    assert results["empty"] == {"score": 0.0, "output": gradescope.NO_LESSONS}


def test_each_gradescope_submission_draws_its_own_values(tmp_path):
    metadata = tmp_path / "submission_metadata.json"
    keys = []
    for submission in (123, 124, 123):
        metadata.write_text(json.dumps({"id": submission}))
        keys.append(gradescope.submission_secret(bytes(32), metadata))
    assert keys[0] == keys[2] != keys[1] and len(keys[0]) == 32
    absent = tmp_path / "absent.json"  # graded outside Gradescope
    assert gradescope.submission_secret(bytes(32), absent) != gradescope.submission_secret(bytes(range(32)), absent)


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


def needs_reference_problem(exercise: exercises.Exercise) -> str:
    """What is wrong with an exercise's ``needs_reference`` ("" when nothing): the release's texts
    set it inside a sentence (a parenthesis, a list item ending with a period), so it is empty
    (a public check) or one line without spaces at its ends, runs of spaces or a final period."""
    why = exercise.needs_reference
    if why != " ".join(why.split()) or why.endswith("."):
        return f"{exercise.id}: needs_reference {why!r} is not one line without a final period"
    return ""


def test_each_exercise_says_in_one_line_whether_a_release_checks_it():
    """Each exercise's ``needs_reference`` is empty or one line (a blank or two-line one is
    refused); the learners' README names every exercise, the guide points at the field, and a
    reference whose processors were not stubs is told apart from the public one."""
    assert [problem for e in exercises.EXERCISES if (problem := needs_reference_problem(e))] == []
    max_fn = exercises.get("max_fn")
    for bad in (" ", "two\nlines", "ends with a period."):
        assert needs_reference_problem(dataclasses.replace(max_fn, needs_reference=bad)), bad
    text = student.readme(course.contents())
    assert all(f"`{e}`" in text for e in exercises.BY_ID) and "$" not in text.replace("$ ", "")
    assert answers_in(ROOT / "solutions")  # the helper sees answers where there are some
    assert student.public_split(["max_fn", "kv_cache"]) == (["max_fn", "kv_cache"], [])  # the course has them all
    assert "`needs_reference`" in (ROOT / "docs/release.md").read_text()


@pytest.fixture(scope="module")
def public_release(tmp_path_factory) -> dict:
    """A release without solutions whose lessons/ hold the reference's functions, and how to run
    a command there as a learner does (its own files first, no choice of the reference)."""
    out = tmp_path_factory.mktemp("public") / "release"
    student.write(out, with_solutions=False)
    for name, text in finished_lessons().items():
        (out / "lessons" / name).write_text(text)
    env = {**{k: v for k, v in os.environ.items() if k != "COURSE_IMPL"}, "PYTHONPATH": str(out),
           "GRADER_STATE_DIR": str(out.parent / "state"), "HF_HUB_OFFLINE": "1"}
    return {"cwd": out, "capture_output": True, "text": True, "timeout": 300, "env": env}


def checked_there(there: dict, *args: str) -> tuple[int, dict]:
    """``grader check ARGS --json`` in the release: its exit status and its JSON object."""
    result = subprocess.run([sys.executable, "-m", "grader", "check", *args, "--json"], **there)
    return result.returncode, json.loads(result.stdout.strip().splitlines()[-1])


def test_a_release_without_solutions_gives_real_verdicts(public_release):
    """`grader check` in the release: the reference's functions, written as the learner's, pass
    two public checks (one statistical, one whose judge takes its exact law, not the
    reference's processors); a max_fn without its clamp fails; an exercise whose check needs
    the reference gets its one line."""
    status, result = checked_there(public_release, "max_fn", "on_policy_batch", "speculative_generate")
    assert status == 0, result
    assert [(c["exercise"], c["status"]) for c in result["checks"]] == [("max_fn", "passed"),
                                                                       ("on_policy_batch", "passed")]
    assert result["autograder_only"] == [public.why_not_public("speculative_generate")]
    residual = public_release["cwd"] / "lessons" / "residual.py"
    correct = residual.read_text()
    residual.write_text(correct.replace("x.clamp(min=0)", "x"))
    try:
        status, result = checked_there(public_release, "max_fn")
    finally:
        residual.write_text(correct)
    assert status == 1 and [(c["exercise"], c["status"]) for c in result["checks"]] == [("max_fn", "failed")]


def test_the_demo_in_a_release_without_solutions_names_the_step_to_finish(public_release):
    """`grader demo` runs the learner's own loops there: with a stub left in their processors
    it stops at once with one line naming it."""
    sampling = public_release["cwd"] / "lessons" / "sampling.py"
    finished = sampling.read_text()
    sampling.write_text(release.lessons()["sampling.py"])  # lesson 0 not written yet
    try:
        result = subprocess.run([sys.executable, "-m", "grader", "demo"], **public_release)
    finally:
        sampling.write_text(finished)
    assert result.returncode == 1 and not result.stdout, result
    assert result.stderr.startswith("✘ `grader demo` runs your own `fast_suffix_speculative_generate` and "
                                    "`fast_autoregressive_generate`, and `"), result.stderr
    assert "still raises NotImplementedError: finish it, then run `grader demo` again." in result.stderr


PUBLIC_TABLE = """
import json
from grader import exercises
from grader.decider import run_isolated
for verdict in run_isolated([e.id for e in exercises.EXERCISES], "lessons", 0, sandboxed=False):
    print(json.dumps([verdict.exercise, verdict.status, "ReferenceWithheld" in verdict.summary]))
"""


@pytest.mark.slow
def test_the_public_table_is_what_runs_without_the_reference(public_release):
    """Every check run in the release on the reference's functions, whether `grader check` would
    run it or not: the public ones pass, every other one meets a stub of the public reference
    (70 to 115 s on 2 cores, by the other work running)."""
    result = subprocess.run([sys.executable, "-c", PUBLIC_TABLE], **public_release)
    assert result.returncode == 0, result.stderr
    verdicts = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("[")]
    assert {e for e, status, _ in verdicts if status == "passed"} == set(public.PUBLIC), verdicts
    assert all(stubbed for e, status, stubbed in verdicts if e not in public.PUBLIC), verdicts


def test_the_list_in_a_release_without_solutions_says_which_exercises_the_autograder_checks(public_release):
    """`grader list` there: a written exercise whose check needs the reference is the
    autograder's to check; a public one waits for `grader check`. `--isolated`, which puts the
    reference's steps in place of the learner's others, is a usage error there."""
    listing = subprocess.run([sys.executable, "-m", "grader", "list"], **public_release)
    assert listing.returncode == 0, listing.stderr
    rows = {line.split()[1]: line for line in listing.stdout.splitlines()[1:] if line[:1].isdigit()}
    assert AUTOGRADERS in rows["speculative_generate"] and AUTOGRADERS not in rows["greedy_match"], listing.stdout
    isolated = subprocess.run([sys.executable, "-m", "grader", "check", "max_fn", "--isolated"], **public_release)
    assert isolated.returncode == 2 and "this release leaves the reference out" in isolated.stderr, isolated


def test_the_checks_never_advise_importing_a_stub_of_the_reference(monkeypatch):
    """A learner's function that calls an unfinished step is told to finish it, and to import
    the reference's step meanwhile only where the reference's is no stub: the public reference
    lists its stubs in ``__withheld__``, its modules, as the release writes them, too."""
    from grader.checks import harness

    unfinished = {}
    exec("def max_fn(x):\n    raise NotImplementedError\n", unfinished)  # the lesson's stub, named as there
    try:
        unfinished["max_fn"](None)
    except NotImplementedError as exc:
        raised = exc
    run = harness.CheckRun(exercises.get("speculative_sampling"), None, 0)
    said = {}
    for where, withheld in (("full", ()), ("public", ("max_fn",))):
        reference = types.SimpleNamespace(max_fn=None, __withheld__=withheld)
        monkeypatch.setattr(harness, "_reference_module", lambda module, reference=reference: reference)
        said[where] = run._unfinished("speculative_sampling", raised).summary
    assert "import the reference one: `from solutions.residual import max_fn`" in said["full"], said
    assert said["public"].endswith("Finish `max_fn` first (`grader check max_fn`)."), said
    module = types.ModuleType("residual")
    exec(public.sources()["solutions/residual.py"], module.__dict__)
    assert module.__withheld__ == tuple(name for e in exercises.EXERCISES if e.module == "residual" for name in e.withheld)
    assert "max_fn" in module.__withheld__


# --- the notebooks in a release without the reference ---------------------------------------------

STOPPING = [f"notebooks/{name}.ipynb" for name in ("03_speculative_generate", "05_ngram", "06_performance",
                                                     "08_batches", "09_trees")]  # they run the reference's studies too


@pytest.fixture(scope="module")
def stub_release(tmp_path_factory) -> Path:
    """A release without solutions, its lessons/ the shipped stubs, as a learner opens it."""
    out = tmp_path_factory.mktemp("stubs") / "release"
    student.write(out, with_solutions=False)
    return out


def executed(release: Path, notebook: str, monkeypatch) -> list[tuple[str, list[dict]]]:
    """``notebook`` executed to its end in ``release`` as a learner's kernel runs it (the release's
    own files first, no choice of the reference): (source, outputs) of each code cell. Raises
    nbclient's CellExecutionError at a cell that ends in an error."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("COURSE_IMPL", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(release))
    monkeypatch.setenv("GRADER_STATE_DIR", str(release.parent / "state"))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = release / notebook
    book = nbformat.read(path, as_version=4)
    NotebookClient(book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return [(cell.source, cell.outputs) for cell in book.cells if cell.cell_type == "code"]


def assert_runs_to_its_end_on_the_stubs(cells: list[tuple[str, list[dict]]]) -> None:
    """Every cell ran (nbclient raised at none), none shows a traceback, and each cell that stopped
    says why in one line: a step of the learner's still a stub, or what the release leaves out."""
    printed = ["".join(o.get("text", "") + "".join(o.get("data", {}).get("text/plain", "")) for o in outputs)
               for _, outputs in cells]
    assert not [o for _, outputs in cells for o in outputs if o.get("output_type") == "error"]
    stops = [line for text in printed for line in text.splitlines() if line.startswith("Stopped here: ")]
    assert stops and any("lessons/" in line and "still raises NotImplementedError" in line for line in stops), printed
    assert printed[0].startswith("The course's reference (solutions/) is not in this release"), printed[0]
    for text in printed:
        assert "Traceback" not in text and text.count("Stopped here: ") <= 1, text


def test_notebook_03_runs_to_its_end_in_a_release_without_the_reference(stub_release, monkeypatch):
    """Its cells run the learner's stubs and the reference's studies: each stops with one line,
    and its check() cell says the autograder checks speculative_generate (the four others: -m slow)."""
    cells = executed(stub_release, STOPPING[0], monkeypatch)
    assert_runs_to_its_end_on_the_stubs(cells)
    said = "".join(o.get("text", "") for o in cells[2][1]) + "".join(
        o.get("data", {}).get("text/plain", "") for o in cells[2][1])
    assert public.why_not_public("speculative_generate") in said


@pytest.mark.slow
@pytest.mark.parametrize("notebook", STOPPING[1:])
def test_the_notebooks_with_the_references_studies_run_to_their_end_without_it(stub_release, notebook, monkeypatch):
    """05, 06, 08 and 09 as 03 above (about 30 to 50 s each on a loaded 2-core machine): the
    mutants of the course's tests/, which the release leaves out, stop their cells with a line too."""
    assert_runs_to_its_end_on_the_stubs(executed(stub_release, notebook, monkeypatch))


def test_a_cell_stops_with_one_line_where_a_step_is_unwritten_or_the_release_lacks_something(capsys, tmp_path):
    """The kernel's hooks (grader/release/cells.py) on an IPython shell in this process: a stub, a
    withheld answer, a missing course file and a name a stopped cell would have made each stop
    their cell with a line and count as run; a half-filled list is unbound, a whole value kept;
    any other error keeps its traceback and stays an error."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        assert shell.run_cell("from grader.release import cells\nassert cells.install()").success
        shell.run_cell("def step():\n    raise NotImplementedError\n")
        capsys.readouterr()
        cells_said = {}
        for name, source in {
                "stub": "whole = 7\nhalf = []\nfor i in range(3):\n    half.append(step())\nnever = 1",
                "withheld": "from grader.runner.reference import ReferenceWithheld\n"
                            "raise ReferenceWithheld('`solutions.trees.tree_layout` is not in this release: it is an answer')",
                "missing": f"from pathlib import Path\ncells.course_file(Path({str(tmp_path)!r}) / 'tests' / 'm.py')",
                "unmade": "print(half)",
                "unmade_later": "print(never)"}.items():
            assert shell.run_cell(source).success, name
            cells_said[name] = capsys.readouterr().out
        for name, said in cells_said.items():
            assert said.startswith("Stopped here: ") and said.count("\n") == 1 and "Traceback" not in said, (name, said)
        assert "`step` (" in cells_said["stub"] and "still raises NotImplementedError" in cells_said["stub"]
        assert "`solutions.trees.tree_layout` is not in this release" in cells_said["withheld"]
        assert "tests/m.py" in cells_said["missing"]
        assert "`half`" in cells_said["unmade"] and "`never`" in cells_said["unmade_later"]
        assert shell.user_ns["whole"] == 7 and "half" not in shell.user_ns  # a half-filled list unbound
        for genuine in ("print(nowhere_defined)", "raise ValueError('a bug of mine')", "raise RuntimeError('mine')"):
            assert not shell.run_cell(genuine).success, genuine  # the learner's own error: a traceback
            assert "Stopped here" not in capsys.readouterr().out
        assert shell.run_cell("half = [1]").success and shell.run_cell("print(half)").success  # made again
    finally:
        InteractiveShell.clear_instance()
