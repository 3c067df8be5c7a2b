"""Hostile learner files: each ends within its time limit with a short clear diagnosis and
no pass (from ``grader check``, with exit 1); none of them is modified by the grader.

Each file's verdict is decided on runners forked by one warm zygote (grader/decider/warm.py,
the path of a notebook kernel and of ``grader grade``), which spares each a fresh Python
importing torch; ``grader check`` runs a few of them cold by default, and every one under
``-m slow``."""
import hashlib
import json
import time
from pathlib import Path

import pytest

from grader import exercises, grade, gradebook
from grader.commands.check import DEFAULT_SEED
from grader.decider import replay, run, warm
from grader.observers import observation
from grader.observers.head_feeds import feed
from grader.observers.recording import forward
from grader.studies.in_process import replayed, run_check
from tests.conftest import run_grader

HOSTILE = Path(__file__).parent / "hostile"
TIMEOUT = 60  # seconds per check given to the grader: a whole check, on a busy machine
HANG_TIMEOUT = 8  # the hanging file's limit, which the test waits out

CASES = [  # (file, exercise, status, words the diagnosis must contain)
    ("sys_exit", "autoregressive_generate", "error", "raised SystemExit"),
    ("os_exit", "autoregressive_generate", "error", "ended without finishing the check"),
    ("exit_on_import", "autoregressive_generate", "error", "failed with SystemExit"),
    ("keyboard_interrupt", "autoregressive_generate", "error", "raised KeyboardInterrupt"),
    ("kill_self", "autoregressive_generate", "error", "killed by SIGKILL"),
    ("prints_passed", "autoregressive_generate", "failed", "greedy output"),
    ("hangs", "autoregressive_generate", "error", f"did not finish within {HANG_TIMEOUT} s"),
    ("segfault", "autoregressive_generate", "error", "killed by SIGSEGV"),
    ("memory_error", "autoregressive_generate", "error", "MemoryError"),
    ("recursion", "autoregressive_generate", "error", "RecursionError"),
    ("print_flood", "autoregressive_generate", "error", "printed more output than the grader keeps"),
    ("returns_tensor", "autoregressive_generate", "failed", "expected a list of Python ints"),
    ("syntax_error", "autoregressive_generate", "error", "syntax error in"),
    ("import_error", "autoregressive_generate", "error", "No module named 'a_module_that_does_not_exist'"),
    ("missing_function", "autoregressive_generate", "not defined", "is not defined in"),
    ("returns_nan", "processors", "failed", "NaN/inf entries"),
    ("mutates_input", "processors", "failed", "changed one of its input tensors"),
    # deliberate attacks on the grader: the verdict is decided where the learner's code never runs
    ("forges_verdict_pipe", "max_fn", "error", "sent the grader something it never asks for"),
    ("writes_inherited_fds", "max_fn", "error", "sent the grader something it never asks for"),
    ("skews_call_digest", "max_fn", "error", "is for other arguments than the grader passed"),
    ("patches_harness", "max_fn", "failed", "returned NoneType"),
    ("replaces_grader_modules", "max_fn", "failed", "norm(max(0, x))"),
    ("patches_torch", "max_fn", "failed", "norm(max(0, x))"),
    ("equal_to_everything", "autoregressive_generate", "failed", "returned AlwaysEqual"),
    ("del_prints_passed", "max_fn", "failed", "norm(max(0, x))"),  # judged in the decider, on plain tensors
    ("forges_malformed_finding", "max_fn", "error", "a Stop is malformed"),
    ("forges_formula_summary", "max_fn", "failed", "=HYPERLINK("),
    # the decider builds the forward log from entries sent as each forward ran
    ("rewrites_observer_log", "autoregressive_generate", "failed", "forwards with use_cache=True"),
    ("forges_head_entry", "eagle_generate", "error", "an observer's entry is malformed"),
    # 2 GB of observer entries, which the decider would keep: refused past 16 MB
    ("floods_observer_entries", "autoregressive_generate", "error", "more than 100000 entries or 16 MB"),
]


# one of each way a check ends (an exit, a signal, a wrong value, an import, an attack on
# the pipe): through the command by default, every case under -m slow (the command's own limit on
# a hang: tests/test_cli.py)
COMMAND_CASES = {"os_exit", "kill_self", "prints_passed", "missing_function", "forges_verdict_pipe"}


@pytest.fixture(scope="module")
def pool():
    runners = warm.WarmRunners()
    yield runners
    runners.close()


def limit(name: str) -> int:
    """The seconds a case's check is given."""
    return HANG_TIMEOUT if name == "hangs" else TIMEOUT


def assert_clear(verdict: dict, name: str, status: str, words: str, elapsed: float, before: str):
    """``verdict`` (a Verdict as JSON) is the diagnosis the case expects, given in time, and
    the hostile file is as it was."""
    assert verdict["status"] == status, verdict
    assert words in verdict["summary"] + json.dumps(verdict["findings"]), verdict["summary"]
    assert "Traceback" not in verdict["summary"]
    assert elapsed < limit(name) + 60  # the limit plus the start of a fresh Python process
    assert hashlib.sha256((HOSTILE / f"{name}.py").read_bytes()).hexdigest() == before


@pytest.mark.parametrize("name, exercise, status, words", CASES, ids=[c[0] for c in CASES])
def test_hostile_file_gets_a_clear_verdict(pool, name, exercise, status, words):
    path = HOSTILE / f"{name}.py"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    start, forks = time.monotonic(), pool.forks
    verdict, = run.run_isolated([exercise], name, DEFAULT_SEED, limit(name), import_root=HOSTILE,
                                runners=pool)  # one folder: one sandbox, one zygote
    assert pool.forks == forks + 1  # a zygote's child ran it, not a cold runner
    assert_clear(verdict.to_dict(), name, status, words, time.monotonic() - start, before)


@pytest.mark.parametrize("name, exercise, status, words",
                         [c if c[0] in COMMAND_CASES else pytest.param(*c, marks=pytest.mark.slow) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_command_gives_a_hostile_file_its_verdict_and_exit_1(name, exercise, status, words):
    path = HOSTILE / f"{name}.py"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    start = time.monotonic()
    result = run_grader("check", exercise, "--impl", str(path), "--timeout", str(limit(name)), "--json")
    elapsed = time.monotonic() - start
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["passed"] is False
    assert_clear(report["checks"][0], name, status, words, elapsed, before)


def test_flood_output_is_truncated():
    result = run_grader("check", "autoregressive_generate", "--impl", str(HOSTILE / "print_flood.py"))
    assert len(result.stdout) < 10_000
    assert "more bytes not shown" in result.stdout


def test_traceback_only_with_verbose():
    quiet = run_grader("check", "autoregressive_generate", "--impl", str(HOSTILE / "recursion.py"))
    loud = run_grader("check", "autoregressive_generate", "--impl", str(HOSTILE / "recursion.py"), "-v")
    assert "Traceback" not in quiet.stdout
    assert "Traceback" in loud.stdout


def test_every_field_of_a_runners_finding_is_checked():
    good = {"name": "p", "case": "c", "kind": "law", "message": "m" * 9000, "hint": "",
            "table": [["a", "b"], ["c", "d"]], "statistic": 3, "p_value": 0.5, "draws": 10}
    kept = replay.finding(good)
    assert len(kept.message) == replay.TEXT_LIMITS["message"] and kept.statistic == 3.0
    assert (kept.name, kept.case, kept.kind) == ("p", "c", "law")
    for field, bad in [("statistic", "a string"), ("statistic", float("nan")), ("p_value", 7),
                       ("p_value", True), ("draws", -1), ("draws", 2.5), ("table", [["a", "b"], ["c"]]),
                       ("table", [["a", 1]]), ("table", []), ("table", "text"), ("hint", None),
                       ("name", ["p"]), ("case", None), ("kind", "passed"), ("kind", ["law"]),
                       ("property", "p (c)"), ("unknown", 1), ("more_hints", "text"), ("more_hints", [1]),
                       ("more_hints", ["h"] * (replay.MAX_HINT_LEVELS + 1))]:
        with pytest.raises(ValueError):
            replay.finding(dict(good, **{field: bad}))
    for missing in ("name", "kind", "message"):
        with pytest.raises(ValueError):
            replay.finding({k: v for k, v in good.items() if k != missing})


def test_csv_cells_that_would_start_a_formula_are_quoted():
    assert [gradebook.inert(t) for t in ("=1+1", "+1", "-1", "@SUM(A1)", "\t=1", "fine", "")] == [
        "'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\t=1", "fine", ""]


def test_what_observers_receive_from_a_runner_is_checked():
    assert forward({"fed": 3, "cached": 2, "positions": [2, 3, 4]}).positions == [2, 3, 4]
    for bad in [{"fed": "3", "cached": 0}, {"fed": 1, "cached": -1}, {"fed": 1, "cached": 0, "positions": "x"},
                {"fed": 1}, {"fed": 1, "cached": 0, "extra": 1}, {"fed": 1, "cached": 0, "cache_type": 7}]:
        with pytest.raises(ValueError):
            forward(bad)
    for bad in ["3", -1, 2.0, True, None]:
        with pytest.raises(ValueError):
            observation.count(bad)
    assert feed([0, None]) == [0, None]  # a feature head's call: pairs fed, pairs cached
    for bad in [[1], [1, 2, 3], (1, 2), [1, "2"], [-1, 0], [True, 0], "12"]:
        with pytest.raises(ValueError):
            feed(bad)


def test_start_and_end_records_are_checked():
    """A record's offset is taken only from the record that may carry it, well formed."""
    assert run._offset({"start": "max_fn", "output_at": 5}, "start", "max_fn") == 5
    assert run._offset({"end": "max_fn", "output_at": 9, "reference_opened": []}, "end", "max_fn") == 9
    for record in ({"start": "max_fn", "output_at": 5, "reference_opened": []}, {"start": "max_fn", "output_at": -1},
                   {"start": "kv_cache", "output_at": 5}, {"start": "max_fn", "output_at": 2.5}, ["start"]):
        assert run._offset(record, "start", "max_fn") is None, record


@pytest.mark.parametrize("name", ["syntax_error", "import_error", "exit_on_import", "no_such_file"])
def test_the_tests_in_process_word_a_load_error_as_the_learner_reads_it(name):
    """Code that does not import gets one verdict, worded once (``verdict.load_error_verdict``
    on the runner's record): the in-process checks the course's tests run give the learner's."""
    exercise, path = exercises.get("autoregressive_generate"), str(HOSTILE / f"{name}.py")
    learners, = run.run_isolated([exercise.id], path, seed=0)
    assert learners.status == "error" and "Traceback" not in learners.summary, learners.summary
    for verdict in (replayed(exercise, path, seed=0), run_check(exercise, path, seed=0)):
        assert (verdict.status, verdict.summary) == (learners.status, learners.summary)


def _time_to_read(lines: list[bytes]) -> float:
    """Seconds a Channel takes to receive ``lines`` (each a JSON string), written by a thread."""
    import os
    import threading

    from grader.decider.channel import Channel
    read_fd, write_fd = os.pipe()

    def write():
        with os.fdopen(write_fd, "wb") as pipe:
            for line in lines:
                pipe.write(line + b"\n")

    writer = threading.Thread(target=write)
    channel = Channel(read_fd)
    start = time.monotonic()
    writer.start()
    for _ in lines:
        assert type(channel.receive()) is str
    elapsed = time.monotonic() - start
    writer.join()
    channel.close()
    return elapsed


def test_a_long_record_is_read_in_linear_time():
    """One 96 MB record takes about as long as 96 records of 1 MB (re-splitting the whole
    buffer at every chunk read made the long one quadratic: 48 times the bytes scanned)."""
    size = 96 * 2**20
    one = _time_to_read([b'"' + b"a" * size + b'"'])
    many = _time_to_read([b'"' + b"a" * 2**20 + b'"'] * 96)
    assert one < 3 * many + 0.5, (one, many)


def test_observer_entries_are_capped_per_check():
    """The decider keeps a streamed observer's entries: past MAX_ENTRIES of them, or
    MAX_ENTRY_BYTES, the run refuses more (the replay then blames the submission)."""
    from grader.observers.recording import RecordingModel
    run = observation.Observation(observation.REPLAY)
    model = RecordingModel(None, run)  # kept: the run holds its observers weakly
    entry = {"observer": 0, "entry": {"forward": {"fed": 1, "cached": 0}}}
    for _ in range(1000):
        run.add_entry(entry)
    big = {"observer": 0, "entry": {"forward": {"fed": 1, "cached": 0, "positions": [0] * 2**17}}}
    with pytest.raises(ValueError, match="entries"):
        for _ in range(observation.MAX_ENTRY_BYTES // 2**18 + 2):
            run.add_entry(big)
    assert run.entry_bytes > observation.MAX_ENTRY_BYTES and len(model.forwards) < 1000 + 2**7
    many = observation.Observation(observation.REPLAY)
    kept = RecordingModel(None, many)  # noqa: F841
    many.entries = observation.MAX_ENTRIES
    with pytest.raises(ValueError, match="entries"):
        many.add_entry(entry)


def test_memory_beyond_the_limits_is_refused_in_every_form():
    """A shared mapping counts against the runner's memory (RLIMIT_AS), and every in-memory
    folder of its sandbox is read-only or sized: /dev/shm 16 MB, /tmp 64 MB (a file at most
    32 MB), /dev and the covers none."""
    result = run_grader("check", "max_fn", "--impl", str(HOSTILE / "maps_memory.py"), "--json")
    output = json.loads(result.stdout.strip().splitlines()[-1])["checks"][0]["output"]
    assert "shared 12 GiB: refused" in output, output
    assert "/dev/shm: stopped after 16 MB: No space left on device" in output, output
    assert "/tmp: stopped after 32 MB: File too large" in output, output
    for folder in ("/dev", "grader/judges", "grader/studies"):
        assert f"{folder}: stopped after 0 MB: Read-only file system" in output, output


def test_a_runners_clock_starts_at_its_launch(monkeypatch):
    """A runner that says it starts its check late (a start-up starved of CPU, or delayed on
    purpose) has that delay counted against its limit: the check ends STARTUP_TIMEOUT plus
    the limit after the launch, not the limit after the start record."""
    import os
    import subprocess
    import threading

    from grader.decider.channel import Channel
    monkeypatch.setattr(run, "STARTUP_TIMEOUT", 1.0)
    read_fd, write_fd = os.pipe()
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    launched = time.monotonic()

    def start_late():
        time.sleep(1.5)
        os.write(write_fd, b'{"start": "max_fn", "output_at": 0}\n')

    threading.Thread(target=start_late, daemon=True).start()
    with open(os.devnull, "rb") as nothing:
        verdict, _ = next(run._records_decided(process, Channel(read_fd), ["max_fn"], {"max_fn": 0}, 1.0,
                                               run.Output(nothing.fileno()), launched))
    elapsed = time.monotonic() - launched
    os.close(write_fd)
    assert "did not finish within 1 s" in verdict.summary, verdict.summary
    assert 1.9 < elapsed < 2.4, elapsed  # launch + 1 s of start-up + 1 s; from the start record: 2.5 s
    assert process.poll() is not None


def test_a_metadata_file_nested_too_deep_is_ignored(tmp_path):
    """A learner's submission_metadata.json nested past Python's recursion limit (5,000
    brackets, 10 KB) made json raise RecursionError after the class was graded, and no CSV or
    results.json was written for anyone: it is read as no metadata, like any malformed one."""
    from grader.gradebook import roster
    (tmp_path / grade.METADATA).write_text('{"users": ' + "[" * 5000 + "]" * 5000 + "}")
    assert roster.student(tmp_path) == {}


def test_regrading_a_submission_whose_key_is_quoted_replaces_its_rows(tmp_path):
    """A key that would start a formula (``-bob``) is written quoted (``'-bob``): regrading it
    replaces its rows in both CSVs rather than leaving its old verdict beside the new one."""
    import csv

    from grader.gradebook import scoring, sheets
    from grader.verdict import FAILED, PASSED, Verdict
    points = scoring.load(None, ["max_fn"])
    long, wide = tmp_path / "long.csv", tmp_path / "wide.csv"
    for status in (PASSED, FAILED):
        rows = [grade.Row("-bob", [Verdict("max_fn", status, "s", 1)])]
        sheets.write_long(rows, long, points)
        sheets.write_wide(rows, wide, points)
    for path, column in ((long, "status"), (wide, "max_fn")):
        with open(path, newline="", encoding="utf-8") as f:
            written = list(csv.DictReader(f))
        assert [(r["submission"], r[column]) for r in written] == [("'-bob", {long: FAILED, wide: "0"}[path])]


def test_a_metadata_file_that_is_a_pipe_is_ignored(tmp_path):
    """A submission folder (unpacked from a learner's tar, say) whose submission_metadata.json
    is a named pipe: the roster is read from the original after the class is graded, and
    opening the pipe waited for a writer for ever, so nothing was written for anyone."""
    import os
    import threading

    from grader.gradebook import roster
    pipe = tmp_path / grade.METADATA
    os.mkfifo(pipe)
    found = []
    reader = threading.Thread(target=lambda: found.append(roster.student(tmp_path)), daemon=True)
    reader.start()
    reader.join(timeout=5)
    waited = reader.is_alive()
    if waited:  # release it: a writer opening the pipe ends its wait
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)
    assert not waited, "reading the roster waited on a pipe for a writer"
    assert found == [{}]


def test_a_zip_named_in_capitals_is_extracted(tmp_path):
    """``Bob.ZIP`` is taken as a zip (key ``Bob``), and was then copied as a folder: its row
    was "the submission could not be read: Not a directory" instead of its verdicts."""
    import zipfile
    submission = tmp_path / "Bob.ZIP"
    with zipfile.ZipFile(submission, "w") as archive:
        archive.writestr("lessons/__init__.py", "")
    found, refused = grade.submissions([str(submission)])
    assert list(found) == ["Bob"] and not refused
    grade.copy_submission(submission, tmp_path / "copy")
    assert (tmp_path / "copy" / "lessons" / "__init__.py").is_file()
