"""Attacks on the grader from a learner's file (tests/hostile/): each gets a non-pass verdict
for itself and harms no one else, in `grader check` and in `grader grade`; with the sandbox
(bubblewrap), and, where said, without it on a copy of the course."""
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import cli, sources
from grader.decider import sandbox
from tests.conftest import ROOT, run_grader
from tests.test_grade import finished_lessons, fingerprint, write_submission

HOSTILE = ROOT / "tests" / "hostile"
needs_sandbox = pytest.mark.skipif(bool(sandbox.unavailable()),
                                   reason=f"bubblewrap cannot run here: {sandbox.unavailable()}")


def verdict_of(result) -> dict:
    return json.loads(result.stdout.strip().splitlines()[-1])["checks"][0]


@needs_sandbox
@pytest.mark.parametrize("attack", ["rewrites_check_source", "plants_bytecode", "kills_parent",
                                    "detached_writer"])
def test_sandboxed_attack_fails_and_changes_nothing(attack):
    manifest = sources.Manifest()
    caches = sorted((ROOT / "grader").rglob("*.pyc"))
    result = run_grader("check", "max_fn", "--impl", str(HOSTILE / f"{attack}.py"), "--json")
    assert result.returncode == 1 and verdict_of(result)["status"] == "failed", result.stdout
    assert manifest.changed() == [] and sorted((ROOT / "grader").rglob("*.pyc")) == caches


def course_copy(tmp_path: Path) -> Path:
    """The course's packages copied, for attacks that succeed in writing them."""
    copy = tmp_path / "course"
    for package in ("grader", "solutions", "lessons"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def run_copy(copy: Path, *args):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=copy, capture_output=True,
                          text=True, timeout=600)


def test_unsandboxed_rewrite_of_a_check_stops_grading(tmp_path):
    copy = course_copy(tmp_path)
    result = run_copy(copy, "check", "max_fn", "--no-sandbox", "--impl",
                      str(HOSTILE / "rewrites_check_source.py"))
    assert "anything" in (copy / "grader/checks/max_fn.py").read_text(), "the attack did not write"
    assert result.returncode == 1
    assert "grading stopped: the course's file grader/checks/max_fn.py changed" in result.stderr
    assert "passed" not in result.stdout


def test_unsandboxed_planted_bytecode_is_never_run(tmp_path):
    copy = course_copy(tmp_path)
    for _ in range(2):  # the second run starts with the planted file in place
        result = run_copy(copy, "check", "max_fn", "--no-sandbox", "--json", "--impl",
                          str(HOSTILE / "plants_bytecode.py"))
        assert result.returncode == 1 and verdict_of(result)["status"] == "failed", result.stdout
    assert list((copy / "grader/checks/__pycache__").glob("max_fn*.pyc")), "the attack did not plant"


def attacked_class(root: Path) -> Path:
    """A correct submission beside one per attack, each with a wrong max_fn or a refused file,
    and one that copies the reference's file."""
    submissions, done = root / "class", finished_lessons()
    write_submission(submissions / "alice", dict(done, **{"residual.py": "# alice's work\n" + done["residual.py"]}))
    for attack in ("detached_writer", "kills_parent", "rewrites_check_source"):
        write_submission(submissions / attack, dict(done, **{
            "residual.py": (HOSTILE / f"{attack}.py").read_text()}))
    alice = submissions / "alice" / "lessons" / "residual.py"
    write_submission(submissions / "reads_alice", dict(done, **{"residual.py": (
        "import glob\nsources = [%r] + glob.glob('/tmp/grade-*/submission/lessons/residual.py')\n"
        "def max_fn(x):\n    return x * 0\n"
        "for path in sources:\n    try:\n        text = open(path).read()\n"
        "    except OSError:\n        continue\n"
        "    if text.startswith(\"# alice's work\"):  # never another attack's file\n"
        "        exec(text)\n") % str(alice)}))
    write_submission(submissions / "copies_reference", dict(done, **{"residual.py": (
        "import pathlib, grader\n"
        "exec((pathlib.Path(grader.__file__).parent.parent / 'solutions/residual.py').read_text())\n")}))
    write_submission(submissions / "rewrites_log", dict(done, **{
        "autoregressive.py": (HOSTILE / "rewrites_observer_log.py").read_text()}))
    write_submission(submissions / "links_zero", done)
    os.symlink("/dev/zero", submissions / "links_zero" / "lessons" / "zero.py")
    write_submission(submissions / "links_out", done)
    os.symlink(alice, submissions / "links_out" / "lessons" / "notes.txt")
    return submissions


@needs_sandbox
def test_a_class_under_attack(tmp_path):
    submissions = attacked_class(tmp_path)
    before = fingerprint(submissions / "alice")
    out_csv, gradescope = tmp_path / "grades.csv", tmp_path / "gradescope"
    result = run_grader("grade", str(submissions), "--exercises", "max_fn", "autoregressive_generate",
                        "--jobs", "2", "--csv", str(out_csv), "--gradescope", str(gradescope))
    assert result.returncode == 0, result.stdout + result.stderr
    written = out_csv.read_bytes(), {p: p.read_bytes() for p in gradescope.rglob("*.json")}
    time.sleep(8)  # longer than the detached writer waits: it must be gone with its sandbox
    assert (out_csv.read_bytes(), {p: p.read_bytes() for p in gradescope.rglob("*.json")}) == written
    rows = {(r["submission"], r["exercise"]): r for r in csv.DictReader(out_csv.open())}
    assert rows[("alice", "max_fn")]["status"] == "passed"
    assert rows[("alice", "autoregressive_generate")]["status"] == "passed"
    for attack in ("detached_writer", "kills_parent", "rewrites_check_source", "reads_alice"):
        assert rows[(attack, "max_fn")]["status"] == "failed", rows[(attack, "max_fn")]
    for linked in ("links_zero", "links_out"):
        assert rows[(linked, "max_fn")]["status"] == "error"
        assert "symbolic link" in rows[(linked, "max_fn")]["summary"]
    copied = rows[("copies_reference", "max_fn")]  # cheating, not forgery: reported
    assert copied["status"] == "passed" and "solutions/residual.py" in copied["reference files opened"]
    assert rows[("alice", "max_fn")]["reference files opened"] == ""
    observed = rows[("rewrites_log", "autoregressive_generate")]  # its log rewrite changed nothing
    assert observed["status"] == "failed" and observed["sandboxed"] == "yes"
    assert (observed["observed_properties"], observed["observed_failed"]) == ("2", "1")
    assert "observed" in next(line for line in result.stdout.splitlines() if line.startswith("rewrites_log"))
    assert json.loads((gradescope / "alice" / "results.json").read_text())["score"] == 2.0
    assert fingerprint(submissions / "alice") == before


def test_without_the_sandbox_a_killed_grader_costs_only_its_row(tmp_path):  # any machine
    """Also the reason grade needs the sandbox: unsandboxed, copying another's file works."""
    submissions = attacked_class(tmp_path)
    for name in ("detached_writer", "rewrites_check_source", "rewrites_log", "links_zero", "links_out"):
        shutil.rmtree(submissions / name)
    (submissions / "kills_parent").rename(submissions / "killer")
    out_csv = tmp_path / "grades.csv"
    result = run_grader("grade", str(submissions), "--exercises", "max_fn", "--no-sandbox",
                        "--csv", str(out_csv))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WITHOUT a sandbox" in result.stdout
    rows = {r["submission"]: r for r in csv.DictReader(out_csv.open())}
    assert rows["alice"]["status"] == "passed" and rows["alice"]["sandboxed"] == "no (--no-sandbox)"
    assert rows["killer"]["status"] == "error"
    assert "grading process of this submission ended" in rows["killer"]["summary"]
    assert rows["reads_alice"]["status"] == "passed"


def test_grade_refuses_to_run_unsandboxed_unless_told(tmp_path, monkeypatch, capsys):
    write_submission(tmp_path / "me", finished_lessons())
    monkeypatch.setattr(sandbox, "unavailable", lambda: "user namespaces are off")
    with pytest.raises(SystemExit) as ended:
        cli.main(["grade", str(tmp_path / "me"), "--exercises", "max_fn"])
    assert ended.value.code == 2
    assert "user namespaces are off" in capsys.readouterr().err


def test_a_file_right_in_tmp_is_read_and_the_learners_line_comes_first():
    """A learner's try file directly in /tmp (which the sandbox replaces) is still read; an
    error inside a helper names the learner's call first, then the helper's line."""
    path = Path("/tmp") / f"grader_try_{os.getpid()}.py"
    path.write_text("def helper(x):\n    return x[10]\n\n\ndef max_fn(x):\n    return helper(x)\n")
    try:
        result = run_grader("check", "max_fn", "--impl", str(path), "--json")
    finally:
        path.unlink()
    summary = verdict_of(result)["summary"]
    assert "raised IndexError" in summary, summary
    assert f"(at {path.name}, line 6: `return helper(x)`, inside `helper` at {path.name}, line 2" in summary
