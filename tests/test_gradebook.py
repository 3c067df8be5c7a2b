"""What grading gives an instructor, tested on hand-made verdicts (nothing is graded here):
hostile text made printable and capped, submission keys, seeds from a secret, the grading
config's points, the long and wide CSVs merged on a regrade, the class summary, and
Gradescope's results.json."""
import csv
import json
import os
import re
import stat
import zipfile
from pathlib import Path

import pytest

from grader import exercises, grade
from grader.gradebook import outputs, report, results, roster, scoring, sheets
from grader.grade import Row
from grader.release import gradescope, grading_config, secret
from grader.verdict import ERROR, FAILED, NOT_STARTED, PASSED, TEXT_LIMIT, Finding, Verdict, format_text, printable
from tests.conftest import run_grader

HOSTILE = "\x1b[2J\x1b]0;owned\x07\ud800\u202e\r=cmd|' /C calc'!A0\x00\x9b"
CONTROL = [chr(c) for c in (*range(0x20), *range(0x7f, 0xa0)) if chr(c) not in "\n\t"] + ["\ud800", "\u202e"]
SECRET = bytes(range(32))


def unprintable(text: str) -> list[str]:
    return [c for c in CONTROL if c in text]


def verdict(exercise="max_fn", status=PASSED, summary="all hold", seed=1, findings=(), properties=4, **kw):
    return Verdict(exercise, status, summary, seed, list(findings), properties, **kw)


def law_finding(message="a law fails", name="law of token 1"):
    return Finding(name, "T=1", "law", message, "the hint", statistic=9.0, p_value=1e-9, draws=1000)


def hostile_rows() -> list[Row]:
    huge = HOSTILE + "x" * 1_200_000  # the largest findings a runner may send
    return [Row("alice", [verdict(), verdict("speculative_generate", FAILED, "no", 2, [law_finding(huge)] * 3),
                          verdict("kv_cache", NOT_STARTED, "still a stub", 3, properties=0)], seed=11,
                student={"id": "s1", "name": "Alice", "email": "a@example.org"}),
            Row("bob", [verdict(status=ERROR, summary=huge, properties=0, output=huge, traceback=huge),
                        verdict("speculative_generate", PASSED, "ok", 5, properties=3),
                        verdict("kv_cache", FAILED, HOSTILE, 6, [law_finding()], properties=2)], seed=12)]


def points(*exercise_ids) -> scoring.Scoring:
    return scoring.load(None, list(exercise_ids) or ["max_fn", "speculative_generate", "kv_cache"])


@pytest.fixture(autouse=True)
def complete_runs(monkeypatch):
    """The hand-made verdicts' checks evaluate, run to their end, as many properties as the
    verdicts say (partial credit's denominator: ``Exercise.properties``)."""
    for exercise_id, count in {"max_fn": 4, "speculative_generate": 4, "kv_cache": 2}.items():
        monkeypatch.setitem(exercises.COMPLETE_PROPERTIES, exercise_id, count)


# --- hostile text --------------------------------------------------------------------------

def test_printable_escapes_what_a_terminal_would_act_on_and_caps():
    assert printable("ok\n\tfine ünï") == "ok\n\tfine ünï"
    shown = printable(HOSTILE)
    assert not unprintable(shown) and "\\x1b[2J" in shown and "\\ud800" in shown and "\\u202e" in shown
    assert printable("a\nb\tc", one_line=True) == "a\\nb\\tc"
    cut = printable("y" * 10_000, 1000)
    assert len(cut) <= 1000 and cut.endswith("characters cut)") and "9" in cut.split("(")[-1]
    shown.encode("utf-8")  # no lone surrogate is left to stop an encoder


def test_a_verdicts_text_is_printable_and_capped_as_grader_check_prints_it():
    """format_text is what `grader check` prints: escape codes and surrogates from a runner's
    messages, output and traceback come out escaped, and the whole is capped."""
    huge = HOSTILE + "z" * 500_000
    text = format_text(verdict(status=FAILED, summary=HOSTILE, findings=[law_finding(huge)], output=huge,
                               traceback=huge, seed=4), verbose=True)
    assert not unprintable(text) and len(text) <= TEXT_LIMIT
    assert "\\x1b[2J" in text


# --- submissions' keys -----------------------------------------------------------------------

def make_class(root: Path) -> Path:
    folder = root / "class"
    for name in ("jane.doe", "jane.zzz", "alice", ".git", "mallory\x1b[2J"):
        (folder / name / "lessons").mkdir(parents=True)
    for name in ("alice.zip", "..zip", "...zip", "results.json.zip", "carol.ZIP"):
        zipfile.ZipFile(folder / name, "w").close()
    (folder / "notes.txt").write_text("not a submission")
    os.mkdir(os.fsencode(folder) + b"/caf\xe9")  # a name that is not UTF-8
    return folder


def test_a_submissions_key_is_its_full_printable_name_and_bad_names_are_refused(tmp_path):
    found, refused = grade.submissions([str(make_class(tmp_path))])
    assert sorted(found) == ["caf\\udce9", "carol", "jane.doe", "jane.zzz", "mallory\\x1b[2J"]
    assert all(not unprintable(key) for key in found)
    said = "\n".join(refused)
    assert len(refused) == 5 and not unprintable(said), refused
    both = next(r for r in refused if "alice'" in r)
    assert "alice.zip" in both and "two submissions of one name are an error" in both
    for name in ("..zip", "...zip", ".git", "results.json.zip"):
        assert any(f"{name}'" in r for r in refused), (name, refused)


def test_a_submission_named_twice_is_graded_once_and_a_missing_one_is_an_error(tmp_path):
    (tmp_path / "bob" / "lessons").mkdir(parents=True)
    (tmp_path / "bob" / "lessons" / "__init__.py").write_text("")
    found, refused = grade.submissions([str(tmp_path / "bob"), str(tmp_path / "bob") + "/"])
    assert list(found) == ["bob"] and refused == []
    (tmp_path / "zoe" / "submission" / "lessons").mkdir(parents=True)  # as Gradescope lays one out
    (tmp_path / "zoe" / roster.METADATA).write_text("{}")
    assert list(grade.submissions([str(tmp_path / "zoe")])[0]) == ["zoe"]  # regraded alone, still zoe
    with pytest.raises(grade.SubmissionError, match="no file or folder at .*\\\\x1b"):
        grade.submissions([str(tmp_path / "gone\x1b[2J")])


# --- seeds ----------------------------------------------------------------------------------

def test_seeds_come_from_the_secret_with_hmac_and_never_show_it():
    seeds = grade.submission_seeds(SECRET, "jane.doe", ["max_fn", "kv_cache"])
    assert seeds == grade.submission_seeds(SECRET, "jane.doe", ["max_fn", "kv_cache"])
    assert seeds != grade.submission_seeds(SECRET, "jane.zzz", ["max_fn", "kv_cache"])
    assert seeds != grade.submission_seeds(bytes(32), "jane.doe", ["max_fn", "kv_cache"])
    assert seeds["max_fn"] != seeds["kv_cache"] and all(0 <= s < 2**32 for s in seeds.values())
    seed = grade.submission_seed(SECRET, "jane.doe")
    assert 0 <= seed < 2**63 and seeds["max_fn"] == grade.exercise_seed(seed, "max_fn")
    with pytest.raises(ValueError, match="at least 16 bytes"):
        grade.submission_seed(b"7", "jane.doe")  # a small seed, brute-forced in a second before
    row = grade._error_row("jane.doe", ["max_fn"], SECRET, "could not be read")
    assert row.verdicts[0].seed == seeds["max_fn"]  # an error row shows a derived seed, not the secret


def test_the_secret_is_kept_readable_by_its_owner_alone_and_never_replaced(tmp_path):
    drawn = secret.draw()
    kept = secret.write(tmp_path / "s", drawn)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and secret.read(kept) == drawn
    with pytest.raises(secret.SecretError, match="--secret-file"):
        secret.write(kept, secret.draw())
    assert secret.read(kept) == drawn
    (tmp_path / "short").write_text("00ff\n")
    (tmp_path / "text").write_text("my seed is 7\n")
    for bad, why in (("short", "at least 16"), ("text", "hex digits"), ("absent", "hex digits")):
        with pytest.raises(secret.SecretError, match=why):
            secret.read(tmp_path / bad)
    assert secret.derive(drawn, "123") != secret.derive(drawn, "124") != drawn


def test_a_secret_is_drawn_unless_a_file_holds_one_and_kept_beside_the_outputs(tmp_path):
    (tmp_path / "out").mkdir()
    key, drawn = outputs.grading_secret(None)
    said = outputs.keep(key, None, outputs.Outputs(csv=tmp_path / "out" / "class.csv"))
    kept = next((tmp_path / "out").glob("grader-secret-*"))
    assert drawn and str(kept) in said and secret.read(kept) == key
    assert outputs.grading_secret(kept) == (key, False)


# --- points -----------------------------------------------------------------------------------

def test_default_points_count_one_function_once_and_give_partial_credit():
    scored = points()
    assert scored.points == {"max_fn": 1.0, "speculative_generate": 0.5, "kv_cache": 0.5}
    assert points("kv_cache").points == {"kv_cache": 1.0}  # alone, it has the function's point
    assert scored.earned(verdict(status=PASSED)) == 1.0
    assert scored.earned(verdict(status=FAILED, findings=[law_finding()], properties=4)) == 0.75
    assert scored.earned(verdict(status=FAILED, findings=[], properties=4)) == 0.75  # failed: never all
    assert scored.earned(verdict(status=ERROR, properties=0)) == 0.0
    assert scored.earned(verdict(status=NOT_STARTED, properties=0)) == 0.0


def test_partial_credit_counts_what_a_stopped_check_never_evaluated_as_not_held(monkeypatch):
    """The share is of the properties a complete run evaluates (10 here), not of those a check
    evaluated before it stopped: a learner's function that raised, or changed its input, after 2
    properties held earns 2 tenths, not all or half; one that evaluates more than the reference's
    run never earns all; not started earns nothing, whatever it evaluated."""
    monkeypatch.setitem(exercises.COMPLETE_PROPERTIES, "max_fn", 10)
    scored = points("max_fn")
    assert scored.earned(verdict(status=ERROR, properties=2, stopped=True)) == 0.2
    assert scored.earned(verdict(status=FAILED, properties=2, stopped=True)) == 0.2
    assert scored.earned(verdict(status=FAILED, findings=[law_finding()], properties=3, stopped=True)) == 0.2
    assert scored.earned(verdict(status=FAILED, findings=[law_finding()], properties=10)) == 0.9
    assert scored.earned(verdict(status=FAILED, properties=12)) == round(11 / 12, 4)
    assert scored.earned(verdict(status=NOT_STARTED, properties=3)) == 0.0
    assert report.cell(verdict(status=ERROR, properties=2, stopped=True)) == "error 2/2 held, 8 not evaluated"
    assert report.cell(verdict(status=FAILED, findings=[law_finding()], properties=10)) == "failed 9/10 held"
    monkeypatch.setitem(exercises.COMPLETE_PROPERTIES, "max_fn", 0)  # an exercise without its count
    assert scored.earned(verdict(status=FAILED, properties=2, stopped=True)) == 0.5


def test_a_grading_config_sets_points_and_partial_credit(tmp_path):
    config = tmp_path / "grading.toml"
    config.write_text('partial_credit = "all_or_nothing"\nvisibility = "after_due_date"\n[points]\nmax_fn = 3\n'
                      "kv_cache = 2\n")
    scored = scoring.load(config, ["max_fn", "speculative_generate", "kv_cache"])
    assert scored.points == {"max_fn": 3.0, "speculative_generate": 0.5, "kv_cache": 2.0}
    assert scored.visibility == "after_due_date"
    assert scored.earned(verdict(status=FAILED, findings=[law_finding()], properties=4)) == 0.0
    config.write_text('shared = "each"\n')
    assert scoring.load(config, ["speculative_generate", "kv_cache"]).points == {
        "speculative_generate": 1.0, "kv_cache": 1.0}


@pytest.mark.parametrize("text, said", [
    ("partial = 1\n", "unknown key"), ('partial_credit = "half"\n', "expected one of fraction"),
    ('visibility = "public"\n', "after_due_date"), ("[points]\nmax_fm = 1\n", "max_fn"),
    ("[points]\nmax_fn = -1\n", "from 0"), ('[points]\nmax_fn = "2"\n', "from 0"), ("points = 3\n", "a table"),
    ("[points\n", "is not TOML"), ("draws = 0\n", "from 1"), ("draws = 17\n", "to 16"),
    ("draws = 2.5\n", "whole number"), ("draws = true\n", "whole number"),
])
def test_a_bad_grading_config_is_named(tmp_path, text, said):
    config = tmp_path / "grading.toml"
    config.write_text(text)
    with pytest.raises(grading_config.ConfigError, match=said):
        grading_config.load(config, ["max_fn"])


# --- the CSVs ---------------------------------------------------------------------------------

def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))  # the csv module's own limit: 128 KB a field


def test_the_long_csv_is_written_whatever_a_runner_sent(tmp_path):
    rows = hostile_rows()
    broken = verdict("max_fn", FAILED, "x", 1, findings=[object()])  # a row that cannot be written
    rows.append(Row("carol", [broken, verdict("speculative_generate"), verdict("kv_cache")]))
    sheets.write_long(rows, tmp_path / "long.csv", points())
    written = read_csv(tmp_path / "long.csv")
    assert [(r["submission"], r["exercise"]) for r in written] == [
        (row.submission, v.exercise) for row in rows for v in row.verdicts]
    cells = [c for r in written for c in r.values()]
    assert max(map(len, cells)) <= sheets.CELL_LIMIT and not [c for c in cells if unprintable(c)]
    assert not [c for c in cells if c.startswith(sheets.FORMULA_STARTS)]
    assert written[6]["status"] == ERROR and "could not write this verdict" in written[6]["summary"]
    assert written[7]["status"] == PASSED  # the row after it
    alice_loop = written[1]
    assert (alice_loop["points"], alice_loop["max_points"], alice_loop["seed"]) == ("0.125", "0.5", "2")


def test_a_regrade_merges_into_both_csvs_and_keeps_every_other_row(tmp_path):
    long, wide = tmp_path / "long.csv", tmp_path / "wide.csv"
    class_rows = hostile_rows()
    sheets.write_long(class_rows, long, points())
    sheets.write_wide(class_rows, wide, points())
    alice_before = [r for r in read_csv(long) if r["submission"] == "alice"]
    bob_again = [Row("bob", [verdict(), verdict("speculative_generate"), verdict("kv_cache")], seed=13),
                 Row("dave", [verdict(status=NOT_STARTED, properties=0)], seed=14)]
    sheets.write_long(bob_again, long, points())
    sheets.write_wide(bob_again, wide, points())
    after = read_csv(long)
    assert [r for r in after if r["submission"] == "alice"] == alice_before
    assert [r["status"] for r in after if r["submission"] == "bob"] == [PASSED] * 3
    assert [r["submission"] for r in after].count("dave") == 1
    book = {r["submission"]: r for r in read_csv(wide)}
    assert list(book) == ["alice", "bob", "dave"]
    assert (book["alice"]["id"], book["alice"]["name"], book["alice"]["total"], book["alice"]["seed"]) == (
        "s1", "Alice", "1.125", "11")
    assert (book["bob"]["total"], book["bob"]["max"], book["bob"]["seed"]) == ("2", "2", "13")
    assert book["dave"]["kv_cache"] == ""  # graded on max_fn alone: a cell left blank, none invented


def test_regrading_one_exercise_replaces_that_exercise_alone(tmp_path):
    """`grader grade CLASS/bob --exercises kv_cache` after the class's run: bob's other exercises
    keep their rows and cells, his total is summed again and his max stays."""
    long, wide = tmp_path / "long.csv", tmp_path / "wide.csv"
    sheets.write_long(hostile_rows(), long, points())
    sheets.write_wide(hostile_rows(), wide, points())
    before = {(r["submission"], r["exercise"]): r for r in read_csv(long)}
    assert {k: r["total"] for k, r in ((r["submission"], r) for r in read_csv(wide))} == {"alice": "1.125", "bob": "0.75"}
    kv_again = [Row("bob", [verdict("kv_cache", seed=6, properties=2)], seed=12)]
    class_exercises = sheets.exercises_in(long, wide)
    assert class_exercises == ["max_fn", "speculative_generate", "kv_cache"]
    assert points("kv_cache").points == {"kv_cache": 1.0}  # graded alone, it would hold its function's point
    regrade = scoring.load(None, ["kv_cache"], class_exercises)
    assert regrade.points == {"kv_cache": 0.5}  # as in the class, which shares it with speculative_generate
    sheets.write_long(kv_again, long, regrade)
    sheets.write_wide(kv_again, wide, regrade)
    after = {(r["submission"], r["exercise"]): r for r in read_csv(long)}
    assert list(after) == list(before)  # every row still there, in the course's order
    assert after[("bob", "kv_cache")]["status"] == PASSED and before[("bob", "kv_cache")]["status"] == FAILED
    assert all(after[k] == before[k] for k in before if k != ("bob", "kv_cache"))
    book = {r["submission"]: r for r in read_csv(wide)}
    assert (book["bob"]["max_fn"], book["bob"]["speculative_generate"], book["bob"]["kv_cache"]) == ("0", "0.5", "0.5")
    assert (book["bob"]["total"], book["bob"]["max"], book["bob"]["seed"]) == ("1", "2", "12")
    assert (book["alice"]["total"], book["alice"]["max"], book["alice"]["name"]) == ("1.125", "2", "Alice")


def test_a_regraded_row_sums_only_the_numbers_a_hand_edited_gradebook_holds(tmp_path):
    wide = tmp_path / "wide.csv"
    sheets.write_wide(hostile_rows(), wide, points())
    edited = wide.read_text().replace("bob,,,,0,0.5,0.25,0.75,2,12", "bob,,,,nan,x,0.25,0.75,2,12")
    assert edited != wide.read_text()
    wide.write_text(edited)
    sheets.write_wide([Row("bob", [verdict("kv_cache", properties=2)], seed=12)], wide,
                      scoring.load(None, ["kv_cache"], sheets.exercises_in(None, wide)))
    bob = next(r for r in read_csv(wide) if r["submission"] == "bob")
    assert (bob["max_fn"], bob["speculative_generate"], bob["total"], bob["max"]) == ("nan", "x", "0.5", "2")


def test_a_file_that_is_no_grader_csv_is_never_overwritten(tmp_path):
    roster_csv = tmp_path / "roster.csv"
    roster_csv.write_text("student,grade\njane,A\n")
    with pytest.raises(sheets.SheetError, match="not a CSV this grader writes"):
        sheets.write_long(hostile_rows(), roster_csv, points())
    with pytest.raises(sheets.SheetError, match="not a CSV this grader writes"):
        sheets.write_wide(hostile_rows(), roster_csv, points())
    assert roster_csv.read_text() == "student,grade\njane,A\n"
    assert sheets.exercises_in(roster_csv, tmp_path / "none.csv") == []  # a regrade's points: the defaults
    with pytest.raises(sheets.SheetError, match="is a folder"):
        sheets.write_long(hostile_rows(), tmp_path, points())
    said, failures = outputs.write(hostile_rows(), [], points(), True, outputs.Outputs(
        csv=roster_csv, gradebook=tmp_path / "book.csv", gradescope=tmp_path / "gs"))
    assert len(failures) == 1 and "roster.csv" in failures[0]  # the others were written
    assert said.startswith("Class summary: 2 submission(s) graded in this run")  # not the file's
    assert (tmp_path / "book.csv").is_file() and (tmp_path / "gs" / "bob" / "results.json").is_file()


def test_the_roster_comes_from_gradescopes_metadata_and_is_checked(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / roster.METADATA).write_text(json.dumps({"id": 9, "users": [
        {"name": "Ann\x1b[2J", "email": "ann@x.org", "id": 5, "sid": "S-1"}, {"name": "Ben", "email": "b@x.org", "id": 6}]}))
    assert roster.student(tmp_path / "a") == {"id": "S-1; 6", "name": "Ann\\x1b[2J; Ben", "email": "ann@x.org; b@x.org"}
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / roster.METADATA).symlink_to(tmp_path / "a" / roster.METADATA)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / roster.METADATA).write_text('{"users": "everyone"}')
    assert roster.student(tmp_path / "b") == roster.student(tmp_path / "c") == roster.student(tmp_path) == {}


# --- what is printed ----------------------------------------------------------------------------

def test_the_table_and_the_summary_are_printable_and_say_the_pass_rates(tmp_path):
    rows = [Row("mallory\\x1b", hostile_rows()[0].verdicts), *hostile_rows()[1:]]
    printed = report.table(rows, points()) + report.summary(rows, points(), ["'x/..zip': not graded"])
    assert not unprintable(printed)
    summary = report.summary(hostile_rows(), points())
    assert "max_fn                1/2 (50%)" in summary and "kv_cache              0/2 (0%)" in summary
    assert "2 of 2: speculative_generate: law of token 1" not in summary  # alice alone failed it
    assert "1 of 2: speculative_generate: law of token 1" in summary
    assert "mean 0.94 of 2 points" in summary  # alice 1 + 0.125, bob 0.5 + 0.25


def test_the_summary_after_a_regrade_covers_the_merged_class(tmp_path):
    """Graded then regraded into the same long CSV: the summary printed and written the second
    time is the whole class's as the CSV now holds it (alice kept, bob's new verdicts, dave
    added), not the two regraded alone; a CSV of the earlier layout (no column of failed
    properties' names) is merged into too."""
    out = outputs.Outputs(csv=tmp_path / "long.csv", summary=tmp_path / "summary.txt")
    first, _ = outputs.write(hostile_rows(), [], points(), True, out)
    assert first.startswith("Class summary: 2 submission(s) graded in this run;")
    again = [Row("bob", [verdict(), verdict("speculative_generate"), verdict("kv_cache")], seed=13),
             Row("dave", [verdict(status=NOT_STARTED, properties=0)], seed=14)]
    said, failures = outputs.write(again, [], points(), True, out)
    assert not failures and (tmp_path / "summary.txt").read_text() == said + "\n"
    assert said.startswith(f"Class summary: 3 submission(s): 2 graded in this run, 1 as {out.csv} held them;"), said
    assert "mean 1.04 of 2 points" in said  # alice 1.125, bob 2, dave 0 (his max_fn alone) over 3
    assert re.search(r"max_fn +2/3 \(67%\) +2 +0 +0 +1 +0", said), said  # alice's pass kept, dave's stub
    assert re.search(r"kv_cache +1/2 \(50%\)", said), said  # alice not started, bob passed
    assert "1 of 3: speculative_generate: law of token 1" in said  # alice's failure, kept from the file
    assert "kv_cache: law of token 1" not in said  # bob's failure, replaced by his pass
    earlier = tmp_path / "earlier.csv"  # written by the version before the names' column
    with open(tmp_path / "long.csv", newline="") as f, open(earlier, "w", newline="") as g:
        csv.writer(g).writerows(r[:-1] for r in csv.reader(f))
    said, failures = outputs.write(again[:1], [], points(), True, outputs.Outputs(csv=earlier))
    assert not failures and "3 submission(s): 1 graded in this run, 2 as" in said
    alice = [r for r in read_csv(earlier) if r["submission"] == "alice"]
    assert alice[1]["status"] == FAILED and alice[1]["failed property names"] == ""  # read back without it


# --- Gradescope's results.json ----------------------------------------------------------------------

def test_gradescopes_results_are_as_gradescope_reads_them():
    scored = scoring.Scoring({"max_fn": 1.0, "speculative_generate": 0.5, "kv_cache": 0.5}, "fraction", "hidden")
    alice, bob = (results.results(row, scored) for row in hostile_rows())
    assert (alice["visibility"], alice["output_format"], alice["stdout_visibility"]) == ("hidden", "text", "hidden")
    assert isinstance(alice["execution_time"], float) and alice["score"] == 1.125
    names = [t["name"] for t in alice["tests"]]
    assert names == ["max_fn: passed", "speculative_generate: failed", "kv_cache: not started"]
    assert [t["max_score"] for t in alice["tests"]] == [1.0, 0.5, 0.5]
    for row, written in zip(hostile_rows(), (alice, bob)):
        for v, test in zip(row.verdicts, written["tests"]):
            assert len(test["output"]) <= results.TEST_OUTPUT and not unprintable(test["output"])
            assert f"grader check {v.exercise} --seed {v.seed} -v" in test["output"]


def test_a_verdict_graded_with_reference_steps_is_reproduced_isolated():
    stood = verdict(stood_in=["max_fn"])
    assert f"grader check {stood.exercise} --isolated --seed {stood.seed} -v" in results.test(stood, points())["output"]
    assert "--isolated" not in results.test(verdict(), points())["output"]


def test_advice_only_a_terminal_can_follow_is_reworded():
    said = ("`max_fn` raised ValueError: no. Run with -v for the traceback.",
            "it raised an error (-v shows it). An object",
            "a loop that ignores max_gen_len); `--timeout` sets the limit.")
    for summary in said:
        output = results.test(verdict(status=ERROR, summary=summary, traceback="Traceback ..."), points())["output"]
        assert "-v shows" not in output and "Run with -v" not in output and "--timeout" not in output, output
    assert "max_gen_len); the limit is your instructor's." in results.browser_text(said[2])


def test_a_results_json_is_capped_whatever_the_findings():
    largest = Finding("n" * 500, "c" * 500, "law", HOSTILE * 250, "h" * 5000, [["x" * 300] * 20] * 100,
                      more_hints=["h" * 5000] * 4)  # each field at the most a runner may send (decider/replay.py)
    many = Row("x", [verdict(e.id, FAILED, HOSTILE * 250, 1, [largest] * 200, output="o" * 100_000)
                     for e in exercises.EXERCISES] * 4)
    written = results.text(results.results(many, scoring.load(None, [e.id for e in exercises.EXERCISES])))
    assert len(written.encode()) <= results.MAX_BYTES and json.loads(written)["tests"]


def test_results_go_to_one_file_or_to_a_folder_leaving_the_others(tmp_path):
    (tmp_path / "gs" / "zoe").mkdir(parents=True)
    (tmp_path / "gs" / "zoe" / "results.json").write_text("{}")
    written = results.write(hostile_rows(), tmp_path / "gs", points())
    assert written == [tmp_path / "gs" / "alice" / "results.json", tmp_path / "gs" / "bob" / "results.json"]
    assert (tmp_path / "gs" / "zoe" / "results.json").read_text() == "{}"
    bob_before = (tmp_path / "gs" / "bob" / "results.json").read_text()
    assert results.graded_in(tmp_path / "gs" / "bob" / "results.json") == ["max_fn", "speculative_generate", "kv_cache"]
    kv_again = [Row("alice", hostile_rows()[0].verdicts), Row("bob", [verdict("kv_cache", properties=2)])]
    with pytest.raises(ValueError, match=r"bob/results.json \(it holds max_fn, speculative_generate\)"):
        results.write(kv_again, tmp_path / "gs", points())  # a regrade of bob's kv_cache alone
    assert (tmp_path / "gs" / "bob" / "results.json").read_text() == bob_before
    assert results.write(hostile_rows()[:1], tmp_path / "one.json", points()) == [tmp_path / "one.json"]
    with pytest.raises(ValueError, match="one results.json"):
        results.write(hostile_rows(), tmp_path / "two.json", points())


# --- the autograder's secret and config ----------------------------------------------------------

def test_the_autograder_zip_carries_its_secret_and_config_and_keeps_the_secret_beside_it(tmp_path):
    config = tmp_path / "grading.toml"
    config.write_text('visibility = "after_due_date"\n[points]\nmax_fn = 2\n')
    archive = tmp_path / "hw.zip"
    built = run_grader("autograder", str(archive), "--exercises", "max_fn", "--config", str(config))
    assert built.returncode == 0, built.stderr
    kept = tmp_path / "hw.secret"
    assert str(kept) in built.stdout and stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert secret.read(kept).hex() not in built.stdout
    with zipfile.ZipFile(archive) as opened:
        assert opened.read("secret") == kept.read_bytes() and opened.read("grading.toml") == config.read_bytes()
        assert opened.getinfo("secret").external_attr >> 16 & 0o777 == 0o600
        assert '--config "$root/source/grading.toml"' in opened.read("run_autograder").decode()
    again = run_grader("autograder", str(tmp_path / "hw2.zip"), "--secret-file", str(kept))
    assert again.returncode == 0 and zipfile.ZipFile(tmp_path / "hw2.zip").read("secret") == kept.read_bytes()
    refused = run_grader("autograder", str(archive))  # hw.secret exists: never replaced
    assert refused.returncode == 2 and "--secret-file" in refused.stderr and secret.read(kept)
    config.write_text("[points]\nmax_fm = 2\n")
    wrong = run_grader("autograder", str(tmp_path / "hw3.zip"), "--config", str(config))
    assert wrong.returncode == 2 and "max_fn" in wrong.stderr and not (tmp_path / "hw3.zip").exists()


def test_an_autograder_without_its_secret_says_so_in_results(tmp_path):
    (tmp_path / "submission" / "lessons").mkdir(parents=True)
    (tmp_path / "submission" / "lessons" / "__init__.py").write_text("")
    assert gradescope.main([str(tmp_path), "--secret-file", str(tmp_path / "missing")]) == 0
    said = json.loads((tmp_path / "results" / "results.json").read_text())
    assert said["score"] == 0.0 and "could not read its grading secret" in said["output"]
