"""The command line: exit codes, usage errors, closed pipes, time limits, the progress board."""
import json
import re
import subprocess
import sys

import pytest

from grader import exercises, progress
from tests.conftest import ROOT, run_grader


def test_unknown_exercise_is_a_usage_error():
    result = run_grader("check", "no_such_exercise")
    assert result.returncode == 2
    assert "unknown exercise 'no_such_exercise'" in result.stderr
    assert "did you mean" not in result.stderr


@pytest.mark.parametrize("typed", ["max-fn", "Max_fn"])
def test_a_near_miss_gets_the_check_usage_and_a_suggestion(typed):
    result = run_grader("check", typed)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: grader check")
    assert "did you mean max_fn?" in result.stderr


def test_bad_timeout_is_a_usage_error():
    result = run_grader("check", "processors", "--timeout", "0")
    assert result.returncode == 2
    assert "--timeout" in result.stderr


@pytest.mark.parametrize("command", ["check", "list"])
def test_missing_implementation_is_one_usage_error(command, tmp_path):
    result = run_grader(command, "--impl", str(tmp_path / "nowhere.py"))
    assert result.returncode == 2
    assert result.stderr.count("no implementation file") == 1, result.stderr
    assert result.stdout == ""
    module = run_grader(command, "--impl", "no_such_package.lessons")
    assert module.returncode == 2 and "no module named 'no_such_package.lessons'" in module.stderr


def test_a_closed_pipe_ends_quietly():
    """`grader list | head -1`: the reader leaves early; no BrokenPipeError traceback."""
    grader = subprocess.Popen([sys.executable, "-m", "grader", "list"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    grader.stdout.close()  # nobody reads: every write meets a closed pipe
    stderr = grader.stderr.read().decode()
    assert grader.wait(timeout=60) == 0
    assert "BrokenPipeError" not in stderr and "Traceback" not in stderr, stderr


def test_the_runner_starts_before_the_decider_loads_torch():
    """What a check costs: parsing the command line and starting a runner load neither torch
    nor transformers, so that the runner's imports run beside the decider's."""
    code = ("import sys; from grader import cli; from grader.decider import run; cli.build_parser(); "
            "run.Runner('solutions', {}, False, None, True, ()).command(['max_fn'], 3); "
            "print(sorted(m for m in ('torch', 'transformers', 'scipy') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


def test_each_check_has_its_own_time_limit():
    for exercise in exercises.EXERCISES:
        assert exercise.time_limit == max(15, 10 * exercise.reference_seconds)
    assert exercises.get("max_fn").time_limit == 15
    assert exercises.get("kv_cache").time_limit > 100


def test_an_endless_loop_is_stopped_at_the_checks_own_limit(tmp_path):
    path = tmp_path / "endless.py"
    # it waits rather than spins: the 15 s it is given take no core from the tests beside it
    # (tests/hostile/hangs.py spins, stopped at 8 s)
    path.write_text("import time\n\ndef max_fn(x):\n    while True:\n        time.sleep(0.1)\n")
    result = run_grader("check", "max_fn", "--impl", str(path), "--json", timeout=120)
    verdict = json.loads(result.stdout.strip().splitlines()[-1])["checks"][0]
    assert verdict["status"] == "error"
    assert "did not finish within 15 s" in verdict["summary"]
    assert verdict["seconds"] < 20


def test_list_shows_every_exercise_and_records_progress():
    before = run_grader("list", "--impl", "solutions")
    assert before.returncode == 0
    for exercise in exercises.EXERCISES:
        assert f" {exercise.id} " in before.stdout
    assert run_grader("check", "processors", "--impl", "solutions").returncode == 0
    after = run_grader("list", "--impl", "solutions")
    line = next(row for row in after.stdout.splitlines() if " processors " in row)
    assert "passed" in line


def test_progress_follows_the_exercises_own_functions(tmp_path):
    """Editing another exercise's function in the same file leaves a verdict current;
    editing the exercise's own function, or the file's shared code, does not."""
    path = tmp_path / "verification.py"
    source = (ROOT / "solutions" / "verification.py").read_text()
    path.write_text(source)
    greedy_match = exercises.get("greedy_match")
    assert run_grader("check", "greedy_match", "--impl", str(path)).returncode == 0
    assert progress.status(greedy_match, str(path)) == "passed"
    path.write_text(source + "\n\ndef speculative_sampling(*args):\n    return None\n")
    assert progress.status(greedy_match, str(path)) == "passed"
    path.write_text(source + "\n\ndef greedy_match(*args):\n    return None\n")
    assert progress.status(greedy_match, str(path)) == progress.CHANGED
    path.write_text(source + "\n\nSHARED = 1\n")
    assert progress.status(greedy_match, str(path)) == progress.CHANGED


def test_hint_shows_the_next_level_and_the_time_is_told(tmp_path):
    """A failing check's hint at the second level on asking, and the command's wall time with
    the checks' own share (the rest is start-up)."""
    wrong = tmp_path / "no_clamp.py"
    wrong.write_text((ROOT / "solutions" / "residual.py").read_text().replace("x.clamp(min=0)", "x"))
    first, second = (run_grader("check", "max_fn", "--impl", str(wrong), *extra) for extra in ((), ("--hint",)))
    assert "--hint 2" in first.stdout and "hint 2:" not in first.stdout, first.stdout
    assert "hint 2: x.clamp(min=0)" in second.stdout, second.stdout
    total, checking = map(float, re.search(r"([\d.]+) s in all: ([\d.]+) s checking", second.stdout).groups())
    assert 0 <= checking < total
