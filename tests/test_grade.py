"""`grader grade` over a class folder, graded once for the module (``graded_class``): a correct
and a buggy submission whose names differ after their first dot, a hostile one (zipped), a
not-started one whose name holds an escape code, one that imports the reference, and names
that are refused; the table, the summary, both CSVs, Gradescope's results.json, the secret,
a regrade merged into them; the learners' files untouched. The writers themselves are tested
on hand-made verdicts in tests/test_gradebook.py."""
import csv
import hashlib
import json
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader import exercises, grade
from grader.decider import sandbox
from grader.release import secret
from tests.conftest import ROOT, run_grader, shipped_lessons

EXERCISES = ["processors", "max_fn"]
SANDBOX = [] if not sandbox.unavailable() else ["--no-sandbox"]  # grade needs it, or to be told
DAVE = "dave\x1b[2J"  # a name that would clear the instructor's terminal
NAMES = {"jane.doe", "jane.zzz", "carol", "dave\\x1b[2J", "erin"}  # as printed: the escape code escaped
METADATA = {"id": 77, "users": [{"name": "Jane Doe", "email": "jane@example.org", "id": 5, "sid": "S-42"}]}


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


def buggy_lessons() -> dict[str, str]:
    done = finished_lessons()
    return dict(done, **{"residual.py": done["residual.py"].replace("x.clamp(min=0)", "x")})  # no clamp


def class_folder(root: Path) -> Path:
    submissions = root / "class"
    done = finished_lessons()
    write_submission(submissions / "jane.doe", done)  # correct
    (submissions / "jane.doe" / "submission_metadata.json").write_text(json.dumps(METADATA))
    write_submission(submissions / "jane.zzz", buggy_lessons())  # max_fn without the clamp
    hostile = dict(done, **{"residual.py": (ROOT / "tests/hostile/forges_verdict_pipe.py").read_text()})
    write_submission(root / "carol", hostile)  # forges a verdict; handed in as a zip
    with zipfile.ZipFile(submissions / "carol.zip", "w") as archive:
        for path in (root / "carol").rglob("*.py"):
            archive.write(path, path.relative_to(root / "carol"))
    stubs = shipped_lessons()
    write_submission(submissions / DAVE, stubs)  # not started
    copied = dict(stubs, **{"residual.py": "from solutions.residual import max_fn  # noqa: F401\n"})
    write_submission(submissions / "erin", copied)  # the reference, imported
    write_submission(submissions / "alice", done)  # alice/ beside alice.zip: neither is graded
    for refused in ("alice.zip", "..zip", "results.json.zip"):
        (submissions / refused).write_bytes((submissions / "carol.zip").read_bytes())
    return submissions


def fingerprint(folder: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())).hexdigest()


@dataclass
class Graded:
    submissions: Path
    before: str  # the class folder's fingerprint before grading
    result: object  # the CompletedProcess of `grader grade`
    out: Path  # holds grades.csv, gradebook.csv, summary.txt, gradescope/, class.secret

    def outputs(self, out: Path | None = None) -> list[str]:
        out = out or self.out
        return ["--csv", str(out / "grades.csv"), "--gradebook", str(out / "gradebook.csv"),
                "--summary", str(out / "summary.txt"), "--gradescope", str(out / "gradescope"),
                "--secret-file", str(out / "class.secret"), *SANDBOX]

    def long(self, out: Path | None = None) -> dict:
        return {(r["submission"], r["exercise"]): r for r in csv.DictReader(((out or self.out) / "grades.csv").open())}

    def wide(self, out: Path | None = None) -> dict:
        return {r["submission"]: r for r in csv.DictReader(((out or self.out) / "gradebook.csv").open())}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> Graded:
    root = tmp_path_factory.mktemp("grade")
    submissions = class_folder(root)
    graded = Graded(submissions, fingerprint(submissions), None, root / "out")
    graded.result = run_grader("grade", "--exercises", *EXERCISES, str(submissions), "--jobs", "2",
                               *graded.outputs())
    return graded


def test_grade_a_class(graded_class):
    result = graded_class.result
    assert result.returncode == 1, result.stdout + result.stderr  # some names were refused; the rest graded
    table = {line.split()[0]: line for line in result.stdout.splitlines()
             if line.split()[:1] and line.split()[0] in NAMES}
    assert set(table) == NAMES, result.stdout
    assert ("graded in the sandbox" if not SANDBOX else "WITHOUT a sandbox") in result.stdout
    assert "\x1b" not in result.stdout + result.stderr  # the escape code is shown, never sent
    assert table["jane.doe"].split()[-2:] == ["2/2", "2/2"]
    assert table["jane.zzz"].split()[-2] == "1/2" and "failed" in table["jane.zzz"]
    assert table["carol"].split()[-2] == "1/2" and "error" in table["carol"]
    assert table["dave\\x1b[2J"].split()[-2:] == ["0/2", "0/2"] and "not started" in table["dave\\x1b[2J"]
    for refused in ("alice", "alice.zip", "..zip", "results.json.zip"):
        assert f"{refused}'" in result.stderr, result.stderr
    assert "two submissions of one name are an error" in result.stderr

    rows = graded_class.long()
    assert len(rows) == 10
    assert rows[("jane.doe", "max_fn")]["status"] == "passed"
    bob = rows[("jane.zzz", "max_fn")]
    assert bob["status"] == "failed" and int(bob["failed"]) > 0 and 0 < float(bob["points"]) < 1
    assert rows[("carol", "max_fn")]["status"] == "error"
    assert "never asks for" in rows[("carol", "max_fn")]["summary"]
    assert rows[("dave\\x1b[2J", "processors")]["status"] == "not started"
    assert rows[("erin", "max_fn")]["status"] == "error"
    assert "withheld while max_fn is graded" in rows[("erin", "max_fn")]["summary"]

    gradescope = graded_class.out / "gradescope"
    assert sorted(p.name for p in gradescope.iterdir()) == sorted(NAMES)
    jane = json.loads((gradescope / "jane.doe" / "results.json").read_text())
    assert jane["score"] == 2.0 and [t["name"] for t in jane["tests"]] == [f"{e}: passed" for e in EXERCISES]
    assert all(t["max_score"] == 1.0 and t["output"] for t in jane["tests"])
    zzz = json.loads((gradescope / "jane.zzz" / "results.json").read_text())
    assert 1.0 < zzz["score"] < 2.0  # max_fn's properties that held
    failed = next(t for t in zzz["tests"] if t["name"] == "max_fn: failed")["output"]
    assert "hint:" in failed and "norm(max(0, x))" in failed  # the evidence, not only a summary
    failing = bob["failing properties (with hints)"]
    assert failing.startswith("norm(max(0, x)) over the last dim") and ": " in failing  # a hint
    assert fingerprint(graded_class.submissions) == graded_class.before  # the learners' files are only read


def test_the_gradebook_the_summary_and_the_seeds(graded_class):
    book = graded_class.wide()
    assert sorted(book) == sorted(NAMES)
    jane = book["jane.doe"]
    assert (jane["id"], jane["name"], jane["email"]) == ("S-42", "Jane Doe", "jane@example.org")
    assert (jane["processors"], jane["max_fn"], jane["total"], jane["max"]) == ("1", "1", "2", "2")
    assert book["erin"]["id"] == "" and float(book["jane.zzz"]["total"]) < 2
    summary = (graded_class.out / "summary.txt").read_text()
    assert summary.strip() in graded_class.result.stdout
    assert re.search(r"max_fn +1/5 \(20%\)", summary) and "Refused (not graded):" in summary, summary
    assert "of 5: max_fn: norm(max(0, x))" in summary  # the property jane.zzz failed

    kept = graded_class.out / "class.secret"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and str(kept) in graded_class.result.stdout
    key = secret.read(kept)
    for (name, exercise), row in graded_class.long().items():  # each verdict's seed, from the secret
        assert int(row["seed"]) == grade.submission_seeds(key, name, [exercise])[exercise]
    assert all(int(book[name]["seed"]) == grade.submission_seed(key, name) for name in book)
    written = [p.read_text() for p in graded_class.out.rglob("*") if p.is_file() and p != kept]
    assert not [text for text in written + [graded_class.result.stdout] if key.hex() in text]


def test_a_regrade_merges_into_the_class_outputs(graded_class, tmp_path):
    """`grader grade subs/jane.zzz --csv CLASS.csv --gradescope CLASS_DIR …`, after a fix, on a
    copy of the class's outputs: its rows are replaced and every other student's stay, byte for
    byte in results.json."""
    out = tmp_path / "out"
    shutil.copytree(graded_class.out, out)
    others = {p: p.read_bytes() for p in (out / "gradescope").rglob("*.json") if "jane.zzz" not in str(p)}
    before = {k: r for k, r in graded_class.long(out).items() if k[0] != "jane.zzz"}
    write_submission(tmp_path / "jane.zzz", finished_lessons())
    result = run_grader("grade", str(tmp_path / "jane.zzz"), "--exercises", *EXERCISES, *graded_class.outputs(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Seeds derived from the grading secret in" in result.stdout  # the class's, read again
    after = graded_class.long(out)
    assert {k: r for k, r in after.items() if k[0] != "jane.zzz"} == before
    assert [after[("jane.zzz", e)]["status"] for e in EXERCISES] == ["passed", "passed"]
    assert graded_class.wide(out)["jane.zzz"]["total"] == "2" and len(graded_class.wide(out)) == len(NAMES)
    assert {p: p.read_bytes() for p in others} == others
    assert json.loads((out / "gradescope" / "jane.zzz" / "results.json").read_text())["score"] == 2.0


def test_no_submission_is_a_usage_error(tmp_path):
    result = run_grader("grade", str(tmp_path / "nowhere"))
    assert result.returncode == 2 and "no file or folder" in result.stderr


LATER_EXERCISES = ["speculative_generate", "ngram", "tree_generate"]  # a runner each: three loops suffice


def test_later_lessons_pass_with_lesson_0_unfinished(tmp_path):
    """Correct loops of lessons 3, 5 and 9 beside lesson 0's stubs: the checks hand the loops
    the reference's processors (never a default bound to the stub), and greedy is told by
    ``is_greedy``, not by the class, so nothing is blamed on the unfinished lesson."""
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


CRASHING_MAX_FN = '''import torch

calls = 0


def max_fn(x):
    """Right for its first {right} calls, then {then}."""
    global calls
    calls += 1
    if calls > {right}:
        {wrong}
    positive = x.clamp(min=0)
    total = positive.sum(dim=-1, keepdim=True)
    return positive / torch.where(total > 0, total, torch.ones_like(total))
'''


@pytest.mark.parametrize("then, wrong, status", [
    ("raises", "raise IndexError('crashes midway')", "error"),
    ("writes into its input", "x.zero_()", "failed")])
def test_a_check_stopped_midway_earns_only_what_held_of_a_complete_run(then, wrong, status, tmp_path):
    """max_fn's check on a max_fn right for its six calls in float64, then crashing or changing
    its input in float32: the check stops after 3 of the 6 properties the reference's run
    evaluates, all held, and partial credit
    counts the rest as not held (before, an error earned nothing and a failure that stopped
    after n properties held earned (n − 1)/n)."""
    from grader.gradebook import scoring
    from grader.studies.in_process import replayed

    path = tmp_path / "residual.py"
    path.write_text(CRASHING_MAX_FN.format(right=6, then=then, wrong=wrong))
    exercise = exercises.get("max_fn")
    verdict = replayed(exercise, str(path), seed=0)
    assert verdict.status == status and verdict.stopped and not verdict.findings, verdict
    assert (verdict.properties, exercise.properties) == (3, 6)
    assert scoring.load(None, ["max_fn"]).earned(verdict) == 0.5  # before: 0 as an error, 2/3 as a failure


def test_a_configs_draws_reach_the_checks_and_their_power_statement(tmp_path):
    """`draws = 3` in the grading config (the autograder's zip carries it): every verdict's seed
    carries it, fresh draws keep it, and the check draws three times its samples, so the power
    it states is sharper (speculative_decoding_verify, on the reference); a seed without it
    draws as a learner's `grader check` does."""
    from grader.decider.run import fresh_seed
    from grader.gradebook import scoring
    from grader.studies.in_process import replayed

    config = tmp_path / "grading.toml"
    config.write_text("draws = 3\n")
    assert scoring.load(config, ["max_fn"]).draws == 3 and scoring.load(None, ["max_fn"]).draws == 1
    exercise = exercises.get("speculative_decoding_verify")
    plain = grade.submission_seeds(bytes(range(32)), "bob", [exercise.id])[exercise.id]
    more = grade.submission_seeds(bytes(range(32)), "bob", [exercise.id], draws=3)[exercise.id]
    assert (exercises.draws(plain), exercises.draws(more), more % 2**exercises.SEED_BITS) == (1, 3, plain)
    assert exercises.draws(fresh_seed(more)) == 3 and exercises.draws(fresh_seed(plain)) == 1
    default, tripled = replayed(exercise, "solutions", plain), replayed(exercise, "solutions", more)
    assert default.passed and tripled.passed, (default.summary, tripled.summary)
    stated, sharper = dict(default.detectable), dict(tripled.detectable)
    assert stated and set(stated) <= set(sharper)  # more draws can give a sparse law a test of its own
    ratios = sorted(sharper[p] / stated[p] for p in stated)
    assert ratios[-1] < 1 and ratios[len(ratios) // 2] < 0.7, ratios  # about 1/sqrt(3) as large
    assert any(note.startswith("3 times the default samples") for note in tripled.notes)
    assert not any("default samples" in note for note in default.notes)


def test_a_loop_check_draws_its_law_samples_times_the_configs_draws():
    """A check beyond the verifiers honours draws too: on_policy_batch (a loop's rows, 12 s)
    at draws = 2 feeds each law test twice its default rows, in the decider's replay as in the
    runner's run (a count that differed would end the replay), and passes on the reference;
    at draws = 1 it draws today's 1,200 drafter rows and 400 target rows."""
    import json

    from grader import implementation
    from grader.checks.harness import checked
    from grader.decider.replay import ReplayCheckRun
    from grader.studies.in_process import recorded

    exercise = exercises.get("on_policy_batch")
    module = implementation.load("solutions", exercise.module)
    powered = {}
    for times in (1, 2):
        seed = exercises.with_draws(7, times)
        pending = iter(recorded(exercise, module, seed))
        decider = ReplayCheckRun(exercise, seed, lambda: json.loads(next(pending)))
        verdict = checked(decider)
        assert verdict.passed, verdict.summary
        powered[times] = {prop: draws for prop, draws, _ in decider.powered}
    assert sorted(powered[1].values()) == [400, 1200]
    assert powered[2] == {prop: 2 * draws for prop, draws in powered[1].items()}
