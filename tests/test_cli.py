"""The command line: exit codes, stubs reported as not started, the progress board."""
from tests.conftest import run_grader


def test_stubs_report_not_started():
    result = run_grader("check", "processors", "autoregressive_generate", "--impl", "lessons")
    assert result.returncode == 1
    assert result.stdout.count("not started") == 2, result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_unknown_exercise_is_a_usage_error():
    result = run_grader("check", "no_such_exercise")
    assert result.returncode == 2
    assert "unknown exercise no_such_exercise" in result.stderr


def test_bad_timeout_is_a_usage_error():
    result = run_grader("check", "processors", "--timeout", "0")
    assert result.returncode == 2
    assert "--timeout" in result.stderr


def test_list_shows_every_exercise_and_records_progress(tmp_path):
    before = run_grader("list", "--impl", "solutions")
    assert before.returncode == 0
    for exercise in ("processors", "autoregressive_generate", "max_fn", "speculative_decoding_verify",
                     "speculative_sampling", "greedy_match", "speculative_generate", "kv_cache",
                     "ngram"):
        assert exercise in before.stdout
    assert run_grader("check", "processors", "--impl", "solutions").returncode == 0
    after = run_grader("list", "--impl", "solutions")
    line = next(l for l in after.stdout.splitlines() if " processors " in l)
    assert "passed" in line


def test_missing_implementation_file_is_reported(tmp_path):
    result = run_grader("check", "processors", "--impl", str(tmp_path / "nowhere.py"))
    assert result.returncode == 1
    assert "no implementation file" in result.stdout
