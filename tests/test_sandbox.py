"""Attacks on the grader from a learner's file (tests/hostile/): each gets a non-pass verdict
for itself and harms no one else, in `grader check` and in `grader grade`; with the sandbox
(bubblewrap), and, where said, without it on a copy of the course."""
import csv
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from grader import cli, sources
from grader import grade as grading
from grader.decider import sandbox
from tests.conftest import ROOT, run_grader, shipped_lessons
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
    assert result.returncode == 1 and verdict_of(result)["status"] in refused(attack), result.stdout
    assert manifest.changed() == [] and sorted((ROOT / "grader").rglob("*.pyc")) == caches


def refused(attack: str) -> set[str]:
    """The statuses an attack's wrong max_fn may get: "failed", and for the detached writer
    where setsid fails in the sandbox also "error" (its forked copy of the runner, left in the
    runner's session, writes to the grader's channel too when it runs before the sandbox ends
    with the runner; on a busy machine it may not get to)."""
    return {"error", "failed"} if attack == "detached_writer" and sandbox.setsid_filter() else {"failed"}


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


RUNNER_ATTACKS = ("seeks_host_files", "exhausts_resources", "deep_tree", "forges_malformed_finding",
                  "forges_formula_summary", "reads_oracle", "reads_reference")  # hostile to the decider through what the runner can touch
GRADED_ON = ("seeks_host_files", "exhausts_resources", "deep_tree", "forges_malformed_finding")  # autoregressive_generate read too
PRIVATE_SEED, SECRET = "918273645", "secret-token-of-the-instructor"


def attacked_class(root: Path) -> Path:
    """A correct submission beside one per attack, each with a wrong max_fn or a refused file,
    and one that copies the reference's file. Attacks whose second exercise the test reads
    finish it; the others leave lesson 0 as shipped, so its check stops at the stub."""
    submissions, done = root / "class", finished_lessons()
    unfinished = dict(done, **{"autoregressive.py": shipped_lessons()["autoregressive.py"]})
    write_submission(submissions / "alice", dict(done, **{"residual.py": "# alice's work\n" + done["residual.py"]}))
    for attack in ("detached_writer", "kills_parent", "rewrites_check_source", *RUNNER_ATTACKS):
        lessons = done if attack in GRADED_ON else unfinished
        write_submission(submissions / attack, dict(lessons, **{
            "residual.py": (HOSTILE / f"{attack}.py").read_text()}))
    alice = submissions / "alice" / "lessons" / "residual.py"
    write_submission(submissions / "reads_alice", dict(unfinished, **{"residual.py": (
        "import glob\nsources = [%r] + glob.glob('/tmp/grade-*/submission/lessons/residual.py')\n"
        "def max_fn(x):\n    return x * 0\n"
        "for path in sources:\n    try:\n        text = open(path).read()\n"
        "    except OSError:\n        continue\n"
        "    if text.startswith(\"# alice's work\"):  # never another attack's file\n"
        "        exec(text)\n") % str(alice)}))
    write_submission(submissions / "copies_reference", dict(unfinished, **{"residual.py": (
        "import pathlib, grader\n"
        "exec((pathlib.Path(grader.__file__).parent.parent / 'solutions/residual.py').read_text())\n")}))
    write_submission(submissions / "rewrites_log", dict(done, **{
        "autoregressive.py": (HOSTILE / "rewrites_observer_log.py").read_text()}))
    write_submission(submissions / "links_zero", unfinished)
    os.symlink("/dev/zero", submissions / "links_zero" / "lessons" / "zero.py")
    write_submission(submissions / "links_out", unfinished)
    os.symlink(alice, submissions / "links_out" / "lessons" / "notes.txt")
    return submissions


def host_socket(folder: Path):
    """A listening Unix socket in ``folder``, outside everything the sandbox binds."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "listening.sock"))
    server.listen()
    server.setblocking(False)
    return server


def accepted(server) -> bool:
    try:
        server.accept()[0].close()
        return True
    except BlockingIOError:
        return False


@needs_sandbox
def test_a_class_under_attack(tmp_path):
    submissions = attacked_class(tmp_path)
    before = fingerprint(submissions / "alice")
    sockets = Path(tempfile.mkdtemp(dir="/var/tmp"))
    server = host_socket(sockets)
    out_csv, gradescope = tmp_path / "grades.csv", tmp_path / "gradescope"
    (tmp_path / "class.secret").write_text(PRIVATE_SEED * 8)  # hex digits: a grading secret of 36 bytes
    try:
        result = run_grader("grade", str(submissions), "--exercises", "max_fn", "autoregressive_generate",
                            "--jobs", "2", "--secret-file", str(tmp_path / "class.secret"), "--csv", str(out_csv),
                            "--gradescope", str(gradescope), env={"INSTRUCTOR_TOKEN": SECRET})
        assert not accepted(server), "a runner reached a socket on the host's disk"
    finally:
        server.close()
        shutil.rmtree(sockets)
    assert result.returncode == 0, result.stdout + result.stderr
    written = out_csv.read_bytes(), {p: p.read_bytes() for p in gradescope.rglob("*.json")}
    time.sleep(8)  # longer than the detached writer waits: it must be gone with its sandbox
    assert (out_csv.read_bytes(), {p: p.read_bytes() for p in gradescope.rglob("*.json")}) == written
    rows = {(r["submission"], r["exercise"]): r for r in csv.DictReader(out_csv.open())}
    assert rows[("alice", "max_fn")]["status"] == "passed"
    assert rows[("alice", "autoregressive_generate")]["status"] == "passed"
    for attack in ("detached_writer", "kills_parent", "rewrites_check_source", "reads_alice",
                   "seeks_host_files", "exhausts_resources", "deep_tree", "reads_oracle",
                   "reads_reference"):
        assert rows[(attack, "max_fn")]["status"] in refused(attack), rows[(attack, "max_fn")]
    for attack in GRADED_ON[:3]:  # the rest is graded
        assert rows[(attack, "autoregressive_generate")]["status"] == "passed"
    for linked in ("links_zero", "links_out"):
        assert rows[(linked, "max_fn")]["status"] == "error"
        assert "symbolic link" in rows[(linked, "max_fn")]["summary"]
    malformed = rows[("forges_malformed_finding", "max_fn")]
    assert malformed["status"] == "error" and "a Stop is malformed" in malformed["summary"]
    formula = rows[("forges_formula_summary", "max_fn")]
    assert formula["status"] == "failed" and formula["summary"].startswith("'=HYPERLINK(")
    assert not any(cell.startswith(("=", "+", "@")) for row in csv.reader(out_csv.open()) for cell in row)
    results = {name: json.loads((gradescope / name / "results.json").read_text())
               for name in {submission for submission, _ in rows}}
    # each exercise scored on its own: the forged finding costs max_fn alone
    assert results["alice"]["score"] == 2.0 and results["forges_malformed_finding"]["score"] == 1.0
    seeker = "\n".join(test["output"] for test in results["seeks_host_files"]["tests"])
    assert "planted: ['" in seeker and "sockets: []" in seeker, seeker  # planted in its own /tmp
    assert "root:x:0:0" not in json.dumps(results), "a runner's link made the decider read a host file"
    assert not Path("/tmp/created_through_a_link_by_seeks_host_files").exists()
    assert "INSTRUCTOR_TOKEN" not in seeker and PRIVATE_SEED not in seeker
    derived = {rows[("seeks_host_files", e)]["seed"] for e in ("max_fn", "autoregressive_generate")}
    assert set(re.findall(r"--seed (\d+)", seeker)) == derived, seeker  # the reproduce lines' seeds alone
    assert not any(PRIVATE_SEED in text or SECRET in text
                   for text in [out_csv.read_text(), *(json.dumps(r) for r in results.values())])
    exhausted = "\n".join(test["output"] for test in results["exhausts_resources"]["tests"])
    disk = re.search(r"disk: stopped after (\d+) MB: No space left on device", exhausted)
    assert disk and int(disk.group(1)) <= 64, exhausted
    caches = re.search(r"cache: \[(.*)\]", exhausted).group(1)  # read-only, or within /tmp's limit
    assert all(re.fullmatch(r"'stopped after \d+ MB: (Read-only file system|No space left on device)'", c)
               for c in caches.split(", ") if c), exhausted
    assert "memory: MemoryError" in exhausted and "process limit: (32, 32)" in exhausted
    assert not [p for p in (ROOT, Path("/tmp"), Path("/var/tmp")) if (p / "runner.err").is_symlink()]
    reader = "\n".join(test["output"] for test in results["reads_reference"]["tests"])
    assert "from_module -> a stub" in reader and "WORKS" not in reader, reader
    copied = rows[("copies_reference", "max_fn")]  # the reference's file is not in the sandbox
    assert copied["status"] == "error" and "solutions/residual.py" in copied["reference files opened"]
    assert rows[("alice", "max_fn")]["reference files opened"] == ""
    observed = rows[("rewrites_log", "autoregressive_generate")]  # its log rewrite changed nothing
    assert observed["status"] == "failed" and observed["sandboxed"] == "yes"
    assert (observed["observed_properties"], observed["observed_failed"]) == ("2", "1")
    assert "observed" in next(line for line in result.stdout.splitlines() if line.startswith("rewrites_log"))
    assert fingerprint(submissions / "alice") == before


@pytest.mark.slow  # 46 s of CI's time: the sandboxed class above holds the same for a killed grader
def test_without_the_sandbox_a_killed_grader_costs_only_its_row(tmp_path):  # any machine
    """Also the reason grade needs the sandbox: unsandboxed, copying another's file works."""
    submissions = attacked_class(tmp_path)
    for name in ("detached_writer", "rewrites_check_source", "rewrites_log", "links_zero", "links_out",
                 *RUNNER_ATTACKS):
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


def deep_chain(root: Path, depth: int) -> None:
    """``depth`` folders, each inside the last (made relative to each other: the whole path is
    longer than the system lets a path be)."""
    fd = os.open(root, os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def test_a_folder_3000_deep_is_removed_without_raising(tmp_path):
    folder = tmp_path / "deep"
    folder.mkdir()
    deep_chain(folder, 3000)
    grading.remove_tree(folder)
    assert not folder.exists()
    grading.remove_tree(tmp_path / "never there")  # nothing to remove: no error either


def test_a_submission_too_deep_to_copy_costs_only_its_row(tmp_path, monkeypatch):
    """Refused at a fixed depth, whatever the grading process's recursion limit (torch.compile
    raises it to 2,000 in a process that compiled; a copy bounded by it alone then succeeded)."""
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)  # grade_one sets it for its own process
    write_submission(tmp_path / "deep", finished_lessons())
    deep_chain(tmp_path / "deep" / "lessons", 1100)  # deeper than Python's default recursion limit
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(3000)
    try:
        row = grading.grade_one("deep", tmp_path / "deep", ["max_fn"], bytes(32), None, tmp_path / "work",
                                False, ())
    finally:  # pytest's own clean-up of old temporary folders recurses
        sys.setrecursionlimit(limit)
        grading.remove_tree(tmp_path / "deep")
        grading.remove_tree(tmp_path / "work")
    summary = row.verdicts[0].summary
    assert row.verdicts[0].status == "error" and "could not be read" in summary, summary
    assert f"lies more than {grading.MAX_DEPTH} folders deep in the submission" in summary, summary


def test_a_zip_nested_too_deep_is_refused_before_it_is_extracted(tmp_path):
    member = "lessons/" + "d/" * grading.MAX_DEPTH + "notes.txt"
    with zipfile.ZipFile(tmp_path / "deep.zip", "w") as archive:
        archive.writestr(member, "x")
    with pytest.raises(grading.SubmissionError, match=f"{member} lies more than {grading.MAX_DEPTH} folders deep"):
        grading.copy_submission(tmp_path / "deep.zip", tmp_path / "copy")
    assert not (tmp_path / "copy" / "lessons").exists()
    shallow = "lessons/" + "d/" * (grading.MAX_DEPTH - 1) + "notes.txt"  # as deep as is allowed
    with zipfile.ZipFile(tmp_path / "shallow.zip", "w") as archive:
        archive.writestr(shallow, "x")
    grading.copy_submission(tmp_path / "shallow.zip", tmp_path / "copied")
    assert (tmp_path / "copied" / shallow).read_text() == "x"


def test_a_decider_past_its_deadline_is_stopped_and_costs_only_its_row(tmp_path, monkeypatch):
    write_submission(tmp_path / "slow", finished_lessons())
    monkeypatch.setattr(grading, "row_deadline", lambda exercise_ids, timeout: 0.5)
    start = time.monotonic()
    rows = grading.grade({"slow": tmp_path / "slow"}, ["max_fn"], bytes(32), 1, sandboxed=False)
    assert time.monotonic() - start < 30
    assert rows[0].verdicts[0].status == "error"
    assert "took longer than its limit (0 s" in rows[0].verdicts[0].summary


def test_a_changed_course_file_names_the_submission_being_graded(tmp_path):
    copy = course_copy(tmp_path)
    write_submission(tmp_path / "class" / "rewriter", dict(finished_lessons(), **{
        "residual.py": (HOSTILE / "rewrites_check_source.py").read_text()}))
    result = run_copy(copy, "grade", str(tmp_path / "class"), "--exercises", "max_fn", "--no-sandbox")
    assert result.returncode == 1
    assert "The submission being graded: rewriter." in result.stderr, result.stderr


@needs_sandbox
def test_the_runner_gets_no_seed_no_environment_and_no_host_folder():
    result = run_grader("check", "max_fn", "--impl", str(HOSTILE / "seeks_host_files.py"), "--seed",
                        PRIVATE_SEED, "--json", env={"INSTRUCTOR_TOKEN": SECRET})
    output = verdict_of(result)["output"]
    assert "command line:" in output and PRIVATE_SEED not in output and SECRET not in output
    assert "sockets: []" in output and "INSTRUCTOR_TOKEN" not in output
    assert not (ROOT / "runner.err").is_symlink() and not (ROOT / "max_fn.out").is_symlink()


@needs_sandbox
@pytest.mark.parametrize("hostile, nothing", [("reads_oracle", "found the expected values: False"),
                                              ("reads_studies", "found the studies: []")])
def test_the_checks_expected_values_are_not_in_the_sandbox(hostile, nothing):
    result = run_grader("check", "max_fn", "--impl", str(HOSTILE / f"{hostile}.py"), "--json")
    verdict = verdict_of(result)
    assert verdict["status"] == "failed" and nothing in verdict["output"]


def hostile_solutions(folder: Path) -> Path:
    """A package named ``solutions`` in ``folder`` whose import leaves the file it returns."""
    (folder / "solutions").mkdir(parents=True, exist_ok=True)
    (folder / "solutions" / "__init__.py").write_text(f"open({str(folder / 'IMPORTED')!r}, 'w').close()\n")
    return folder / "IMPORTED"


COMMANDS = {"python -m grader": [sys.executable, "-m", "grader"],
            "console script": [str(Path(sys.executable).parent / "grader")]}


@pytest.mark.parametrize("how", COMMANDS)
def test_a_solutions_package_on_the_import_path_stops_the_grader_before_it_runs(tmp_path, how):
    imported = hostile_solutions(tmp_path / "theirs")
    result = subprocess.run([*COMMANDS[how], "list"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path / "theirs")})
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"refusing to start: `solutions` would be imported from {tmp_path / 'theirs' / 'solutions'}" in result.stderr
    assert not imported.exists()


@pytest.mark.parametrize("how", COMMANDS)
def test_a_solutions_package_in_the_working_folder_is_never_imported(tmp_path, how):
    imported = hostile_solutions(tmp_path)
    result = subprocess.run([*COMMANDS[how], "check", "max_fn", "--impl", "solutions", "--json"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and verdict_of(result)["status"] == "passed", result.stdout + result.stderr
    assert not imported.exists()


def test_a_hidden_path_is_covered_only_inside_a_bound_folder_and_by_its_folder(tmp_path):
    bound = [tmp_path / "bound", tmp_path / "course" / "grader"]
    for folder in bound:
        folder.mkdir(parents=True)
    inside, outside, beside = bound[0] / "class" / "alice", tmp_path / "class" / "bob", tmp_path / "course" / "carol"
    assert sandbox.covers([inside, bound[0] / "class" / "dave", outside], bound) == [bound[0] / "class"]
    assert sandbox.covers([beside], [*bound, tmp_path / "course"]) == [beside]  # its folder holds a bound one


def _processes_named(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


@needs_sandbox
def test_no_process_outlives_its_runner():
    """A child in the runner's session and an orphaned grandchild (in a session of its own
    where setsid works) die with the runner stopped at its limit: the sandbox's PID namespace."""
    marker = "left-behind-by-leaves_processes"  # its sleepers' names (never import the attack here)
    grader = subprocess.Popen([sys.executable, "-m", "grader", "check", "max_fn", "--impl",
                               str(HOSTILE / "leaves_processes.py"), "--timeout", "8", "--json"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = set()
    while grader.poll() is None:
        seen.update(_processes_named(marker))
        time.sleep(0.2)
    assert len(seen) >= 2, "the attack left nothing behind to look for"
    printed, errors = grader.stdout.read(), grader.stderr.read()
    assert printed.strip(), errors
    verdict = json.loads(printed.strip().splitlines()[-1])["checks"][0]
    assert verdict["status"] == "error" and "did not finish within 8 s" in verdict["summary"], verdict
    for _ in range(50):  # the namespace's processes are killed as its first one ends
        if not _processes_named(marker):
            break
        time.sleep(0.1)
    assert _processes_named(marker) == []


@pytest.fixture(scope="module")
def graded_beside_attacks(tmp_path_factory):
    """One grading of max_fn, ``--jobs 2``, started with ``python -m grader`` from inside a
    class folder: alice (correct) graded beside a hog of 200 busy processes, each trying to
    lead its own session; a submission that is also a package named ``solutions``; and one
    that looks for the class folder, the working folder, a file on the instructor's
    PYTHONPATH and its classmates' names. Returns (rows by submission, the CLI's result, the
    highest 1-minute load seen, the paths)."""
    root = tmp_path_factory.mktemp("beside")
    submissions, done = root / "class", finished_lessons()
    instructor = root / "instructor"
    instructor.mkdir()
    (instructor / "roster.txt").write_text("alice, bob: the roster\n")
    write_submission(submissions / "alice", done)
    write_submission(submissions / "hogs", dict(done, **{"residual.py": (HOSTILE / "hogs_processes.py").read_text()}))
    write_submission(submissions / "solutions", done)
    imported = hostile_solutions(submissions)  # its __init__.py, beside its lessons/
    places = {"class folder": str(submissions), "roster on PYTHONPATH": str(instructor / "roster.txt"),
              "alice's lessons": str(submissions / "alice" / "lessons"), "classmates": "alice,hogs,solutions"}
    seeker = (HOSTILE / "seeks_classmates.py").read_text().replace("PLACES = {}", f"PLACES = {places!r}")
    write_submission(submissions / "seeker", dict(done, **{"residual.py": seeker}))
    loads, grading = [], subprocess.Popen(
        [sys.executable, "-m", "grader", "grade", ".", "--exercises", "max_fn", "--jobs", "2",
         "--csv", str(root / "grades.csv"), "--gradescope", str(root / "gradescope")],
        cwd=submissions, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(instructor)})
    while grading.poll() is None:
        loads.append(float(Path("/proc/loadavg").read_text().split()[0]))
        time.sleep(0.5)
    result = subprocess.CompletedProcess(grading.args, grading.returncode, grading.stdout.read(), grading.stderr.read())
    table = root / "grades.csv"  # absent when grading stopped: the first test shows why
    rows = {r["submission"]: r for r in csv.DictReader(table.open())} if table.exists() else {}
    return rows, result, max(loads, default=0.0), {"imported": imported, "gradescope": root / "gradescope"}


@needs_sandbox
def test_a_hog_beside_a_correct_submission_changes_nothing_of_its_verdict(graded_beside_attacks):
    rows, result, load, _ = graded_beside_attacks
    assert result.returncode == 0, result.stdout + result.stderr
    assert rows["alice"]["status"] == "passed", rows["alice"]
    hog = rows["hogs"]
    assert hog["status"] in ("error", "failed"), hog  # its own runner: stopped, or out of processes
    if os.geteuid() == 0:  # the kernel never stops root's processes: the decider's count does
        assert hog["status"] == "error" and f"more than {sandbox.PROCESS_LIMIT} processes" in hog["summary"], hog
    assert load < 100, f"the machine's load reached {load}"


@needs_sandbox
def test_grading_from_a_class_folder_never_imports_its_solutions_package(graded_beside_attacks):
    rows, result, _, paths = graded_beside_attacks
    assert not paths["imported"].exists(), "the class folder's solutions/ ran in a grader process"
    assert rows["solutions"]["status"] == "passed", rows["solutions"]  # graded as the submission it is


@needs_sandbox
def test_a_grading_runner_sees_no_class_folder_no_working_folder_and_no_pythonpath(graded_beside_attacks):
    rows, _, _, paths = graded_beside_attacks
    assert rows["seeker"]["status"] == "failed", rows["seeker"]
    output = "\n".join(test["output"] for test in json.loads(
        (paths["gradescope"] / "seeker" / "results.json").read_text())["tests"])
    for what in ("class folder", "roster on PYTHONPATH", "alice's lessons"):
        assert f"{what}: absent, refused (No such file or directory)" in output, output
    assert "names in the mount table: []" in output, output


def test_a_decider_past_its_memory_limit_costs_only_its_row(monkeypatch):
    """The spawned decider's writable memory is limited (``_send_row``): an allocation past it
    ends in an error row for that submission alone (forked here, so that a stand-in for
    grade_one allocates 1 GB more than the limit)."""
    import multiprocessing
    monkeypatch.setattr(grading, "grade_one", lambda *args: bytearray(grading.DECIDER_MEMORY_BYTES + 2**30))
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    decider = context.Process(target=grading._send_row, args=(send, "greedy", Path("greedy"), ["max_fn"],
                                                              b"a secret of 16 bytes", None, Path("work"), False, (), 1))
    decider.start()
    send.close()
    assert receive.poll(60)
    row = receive.recv()
    decider.join(timeout=30)
    assert row.submission == "greedy" and row.verdicts[0].status == "error", row
    assert f"more than {grading.DECIDER_MEMORY_BYTES // 2**30} GB of memory" in row.verdicts[0].summary


@needs_sandbox
def test_a_runner_cannot_make_a_user_namespace_of_its_own():
    """In a user namespace of its own a runner may make a PID namespace, whose processes the
    decider's count (the tasks in the runner's PID namespace) never sees: a submission held 60
    processes there for 2 s, past the limit of 32, and its max_fn passed. The sandbox keeps it
    from making one (bubblewrap's --disable-userns), where this bubblewrap and kernel allow."""
    unshare = ("import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
               "made = libc.unshare(0x10000000 | 0x20000000); "  # CLONE_NEWUSER | CLONE_NEWPID
               "print('made' if made == 0 else f'refused {ctypes.get_errno()}')")
    if not sandbox.nested_userns_closable():
        pytest.skip("this bubblewrap or kernel cannot refuse a runner's own user namespaces")
    command = sandbox.wrap([sys.executable, "-P", "-c", unshare], [], grading=True)
    ran = subprocess.run(command, capture_output=True, text=True, timeout=60, env=sandbox.runner_environment(True))
    assert ran.stdout.strip().startswith("refused"), (ran.stdout, ran.stderr)
