"""`grader grade` over a class folder: a correct, a buggy, a hostile (zipped) and a
not-started submission, and one that imports the reference; the table, the CSV and
Gradescope's results.json; the learners' files untouched."""
import csv
import hashlib
import json
import re
import zipfile
from pathlib import Path

from grader.decider import sandbox
from tests.conftest import ROOT, run_grader, shipped_lessons

EXERCISES = ["processors", "max_fn"]
SANDBOX = [] if not sandbox.unavailable() else ["--no-sandbox"]  # grade needs it, or to be told


def finished_lessons() -> dict[str, str]:
    """A learner's lessons/ with every exercise done: the reference, importing itself as lessons."""
    files = {p.name: re.sub(r"\bsolutions\b(?=[.\s])", "lessons", p.read_text())
             for p in (ROOT / "solutions").glob("*.py") if p.name != "__init__.py"}
    files["__init__.py"] = (ROOT / "lessons" / "__init__.py").read_text()
    return files


def write_submission(folder: Path, files: dict[str, str]) -> None:
    (folder / "lessons").mkdir(parents=True)
    for name, text in files.items():
        (folder / "lessons" / name).write_text(text)


def class_folder(root: Path) -> Path:
    submissions = root / "class"
    done = finished_lessons()
    write_submission(submissions / "alice", done)  # correct
    buggy = dict(done, **{"residual.py": done["residual.py"].replace("x.clamp(min=0)", "x")})
    write_submission(submissions / "bob", buggy)  # max_fn without the clamp
    hostile = dict(done, **{"residual.py": (ROOT / "tests/hostile/forges_verdict_pipe.py").read_text()})
    write_submission(root / "carol", hostile)  # forges a verdict; handed in as a zip
    with zipfile.ZipFile(submissions / "carol.zip", "w") as archive:
        for path in (root / "carol").rglob("*.py"):
            archive.write(path, path.relative_to(root / "carol"))
    stubs = shipped_lessons()
    write_submission(submissions / "dave", stubs)  # not started
    copied = dict(stubs, **{"residual.py": "from solutions.residual import max_fn  # noqa: F401\n"})
    write_submission(submissions / "erin", copied)  # the reference, imported
    return submissions


def fingerprint(folder: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())).hexdigest()


def test_grade_a_class(tmp_path):
    submissions = class_folder(tmp_path)
    before = fingerprint(submissions)
    out_csv, gradescope = tmp_path / "grades.csv", tmp_path / "gradescope"
    result = run_grader("grade", "--exercises", *EXERCISES, str(submissions), "--jobs", "2",
                        "--seed", "7", "--csv", str(out_csv), "--gradescope", str(gradescope), *SANDBOX)
    assert result.returncode == 0, result.stdout + result.stderr
    names = {"alice", "bob", "carol", "dave", "erin"}
    table = {line.split()[0]: line for line in result.stdout.splitlines()
             if line.split()[:1] and line.split()[0] in names}
    assert set(table) == names, result.stdout
    assert ("graded in the sandbox" if not SANDBOX else "WITHOUT a sandbox") in result.stdout
    assert table["alice"].split()[-1] == "2/2"
    assert table["bob"].split()[-1] == "1/2" and "failed" in table["bob"]
    assert table["carol"].split()[-1] == "1/2" and "error" in table["carol"]
    assert table["dave"].split()[-1] == "0/2" and "not started" in table["dave"]

    rows = {(r["submission"], r["exercise"]): r for r in csv.DictReader(out_csv.open())}
    assert len(rows) == 10
    assert rows[("alice", "max_fn")]["status"] == "passed"
    assert rows[("bob", "max_fn")]["status"] == "failed" and int(rows[("bob", "max_fn")]["failed"]) > 0
    assert rows[("carol", "max_fn")]["status"] == "error"
    assert "never asks for" in rows[("carol", "max_fn")]["summary"]
    assert rows[("dave", "processors")]["status"] == "not started"
    assert rows[("erin", "max_fn")]["status"] == "error"
    assert "withheld while max_fn is graded" in rows[("erin", "max_fn")]["summary"]

    alice = json.loads((gradescope / "alice" / "results.json").read_text())
    assert alice["score"] == 2.0 and [t["name"] for t in alice["tests"]] == EXERCISES
    assert all(t["max_score"] == 1.0 and t["output"] for t in alice["tests"])
    bob = json.loads((gradescope / "bob" / "results.json").read_text())
    assert bob["score"] == 1.0
    failed = next(t for t in bob["tests"] if t["name"] == "max_fn")["output"]
    assert "hint:" in failed and "norm(max(0, x))" in failed  # the evidence, not only a summary
    failing = rows[("bob", "max_fn")]["failing properties (with hints)"]
    assert failing.startswith("norm(max(0, x)) over the last dim") and ": " in failing  # a hint
    assert fingerprint(submissions) == before  # the learners' files are only read


def test_one_submission_writes_one_results_file(tmp_path):
    write_submission(tmp_path / "me", finished_lessons())
    results = tmp_path / "results.json"
    result = run_grader("grade", str(tmp_path / "me"), "--exercises", "max_fn", "--gradescope",
                        str(results), *SANDBOX)
    assert result.returncode == 0, result.stderr
    assert json.loads(results.read_text())["tests"][0]["score"] == 1.0


def test_no_submission_is_a_usage_error(tmp_path):
    result = run_grader("grade", str(tmp_path / "nowhere"))
    assert result.returncode == 2 and "no file or folder" in result.stderr


LATER_EXERCISES = ["speculative_generate", "kv_cache", "ngram", "static_cache", "batched_verify",
                   "batched_generate", "multi_draft", "tree_attention", "tree_generate"]


def test_later_lessons_pass_with_lesson_0_unfinished(tmp_path):
    """Correct lessons 3-9 beside lesson 0's stubs: the checks hand the loops the reference's
    processors (never a default bound to the stub), and greedy is told by ``is_greedy``, not
    by the class, so nothing is blamed on the unfinished lesson."""
    unfinished = dict(finished_lessons(), **{"sampling.py": shipped_lessons()["sampling.py"]})
    write_submission(tmp_path / "no_lesson_0", unfinished)
    out_csv = tmp_path / "grades.csv"
    result = run_grader("grade", str(tmp_path / "no_lesson_0"), "--exercises", *LATER_EXERCISES,
                        "--csv", str(out_csv), *SANDBOX)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {r["exercise"]: r for r in csv.DictReader(out_csv.open())}
    assert {e: rows[e]["status"] for e in LATER_EXERCISES} == dict.fromkeys(LATER_EXERCISES, "passed"), \
        {e: rows[e]["summary"] for e in LATER_EXERCISES if rows[e]["status"] != "passed"}


def test_the_reference_stands_in_for_other_exercises_only(tmp_path):
    """lessons/trees.py taking max_fn from the reference, as the lessons suggest while
    learning, is graded on its own code (multi_draft passes); one that takes tree_layout
    from it loses tree_attention alone, and residual.py re-exporting max_fn loses max_fn."""
    done = finished_lessons()
    trees = done["trees.py"].replace("from lessons.residual import max_fn", "from solutions.residual import max_fn")
    assert trees != done["trees.py"]
    trees += "\nfrom solutions.trees import tree_layout  # noqa: F811\n"
    residual = "from solutions.residual import max_fn  # noqa: F401\n"
    write_submission(tmp_path / "half", dict(done, **{"trees.py": trees, "residual.py": residual}))
    out_csv = tmp_path / "grades.csv"
    result = run_grader("grade", str(tmp_path / "half"), "--exercises", "tree_attention", "multi_draft",
                        "max_fn", "--csv", str(out_csv), *SANDBOX)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {r["exercise"]: r for r in csv.DictReader(out_csv.open())}
    assert rows["multi_draft"]["status"] == "passed", rows["multi_draft"]["summary"]
    for exercise, name in (("tree_attention", "trees.tree_layout"), ("max_fn", "residual.max_fn")):
        assert rows[exercise]["status"] == "error"
        assert f"`solutions.{name}` is withheld while {exercise} is graded" in rows[exercise]["summary"]


def test_a_later_lesson_never_stands_in_for_an_earlier_exercise(tmp_path):
    """A verifier borrowed from lesson 8's reference is withheld in the runner of every
    exercise, and again when speculative_sampling is graded alone: an error, not a pass."""
    done = finished_lessons()
    borrowed = (ROOT / "tests/hostile/borrows_a_later_lesson.py").read_text()
    verification = done["verification.py"] + "\n\n" + borrowed  # replaces its speculative_sampling
    write_submission(tmp_path / "borrower", dict(done, **{"verification.py": verification}))
    out_csv = tmp_path / "grades.csv"
    result = run_grader("grade", str(tmp_path / "borrower"), "--exercises", "speculative_sampling",
                        "batched_verify", "--csv", str(out_csv), *SANDBOX)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {r["exercise"]: r for r in csv.DictReader(out_csv.open())}
    assert rows["batched_verify"]["status"] == "passed", rows["batched_verify"]["summary"]
    spec = rows["speculative_sampling"]
    assert spec["status"] == "error" and "batched_speculative_sampling` is withheld" in spec["summary"], spec
