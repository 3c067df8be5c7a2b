"""Gradescope's ``results.json`` for one submission, as Gradescope reads it: one test per
exercise, named with its status, scored in points (grader/gradebook/scoring.py), its output the
verdict's text cut to TEST_OUTPUT characters with the command that reproduces it; the
submission's ``score``, ``execution_time``, ``visibility`` and output formats; the whole file
at most MAX_BYTES. Text here is read by a learner in a browser, not at a terminal: advice
that only a terminal can follow is reworded (TERMINAL_ONLY)."""
import json
import re
from pathlib import Path

from grader import exercises
from grader.grade import Row
from grader.gradebook.scoring import Scoring
from grader.verdict import PASSED, format_text, printable

TEST_OUTPUT = 8_000  # characters of one test's output
MAX_BYTES = 1_000_000  # of a whole results.json
SANDBOXED = "graded in the sandbox (bubblewrap)"
UNSANDBOXED = ("graded WITHOUT a sandbox (--no-sandbox): each submission's code ran as the "
               "grading user, and could have reached the grader's files and other submissions")
TERMINAL_ONLY = (  # (pattern, replacement): what the checks say to someone running `grader check`
    (re.compile(r" ?Run with -v for the traceback\."), ""),  # the output is -v's: the traceback is in it
    (re.compile(r" \(-v shows it\)"), ""),
    (re.compile(r"; `--timeout` sets the limit\."), "; the limit is your instructor's."),
)


def reproduce(exercise: str, seed: int, stood_in: list[str] = ()) -> str:
    """The command a learner runs to see a verdict again; graded with the reference's steps
    standing in for theirs (``stood_in``), ``--isolated`` does the same."""
    if not stood_in:
        return (f"To see this again on your computer: `grader check {exercise} --seed {seed} -v` in the "
                "course's folder, with your lessons/ (the same draws).")
    return (f"To see this again on your computer: `grader check {exercise} --isolated --seed {seed} -v` in "
            "the course's folder, with your lessons/ (the same draws, the reference's steps in place of "
            "your other exercises' as here; where the course's reference is not installed, leave out "
            "--isolated to check your own chain).")


def browser_text(text: str) -> str:
    for pattern, replacement in TERMINAL_ONLY:
        text = pattern.sub(replacement, text)
    return text


def test(verdict, scoring: Scoring, limit: int = TEST_OUTPUT, said: str | None = None) -> dict:
    """One exercise's test: its name says its status ("max_fn: not started"), Gradescope's
    ``status`` says passed or failed (the only two it knows). ``said``: the verdict's text for
    a browser, where already made."""
    how = reproduce(verdict.exercise, verdict.seed, verdict.stood_in)
    said = browser_text(format_text(verdict, verbose=True, timing=False)) if said is None else said
    text = printable(said, max(0, limit - len(how) - 2))
    return {"name": printable(f"{verdict.exercise}: {verdict.status}", 200, one_line=True),
            "score": scoring.earned(verdict), "max_score": scoring.worth(verdict.exercise),
            "status": "passed" if verdict.status == PASSED else "failed",
            "output": f"{text}\n\n{how}", "output_format": "text"}


def results(row: Row, scoring: Scoring, sandboxed: bool = True) -> dict:
    """The submission's results.json, its tests' outputs cut until the file fits MAX_BYTES."""
    limit, said = TEST_OUTPUT, [browser_text(format_text(v, verbose=True, timing=False)) for v in row.verdicts]
    while True:
        tests = [test(v, scoring, limit, text) for v, text in zip(row.verdicts, said)]
        scored = {"score": round(sum(t["score"] for t in tests), 4),
                  "execution_time": round(sum(v.seconds for v in row.verdicts), 1),
                  "output": _summary(row, scoring, sandboxed), "output_format": "text",
                  "test_output_format": "text", "visibility": scoring.visibility,
                  "stdout_visibility": "hidden", "tests": tests}
        if len(text(scored).encode()) <= MAX_BYTES or limit < 100:
            return scored
        limit //= 2


def _summary(row: Row, scoring: Scoring, sandboxed: bool) -> str:
    statuses = [v.status for v in row.verdicts]
    counts = ", ".join(f"{statuses.count(s)} {s}" for s in dict.fromkeys(statuses))
    partial = ("a failed exercise, or one that ended in an error, earns the share that held of the "
               "properties a complete run of its check evaluates"
               if scoring.partial_credit == "fraction" else "an exercise earns its points only if it passed")
    return f"{counts}: {partial}. Each test says why. {SANDBOXED if sandboxed else UNSANDBOXED}."


def text(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def write(rows: list[Row], path: Path, scoring: Scoring, sandboxed: bool = True) -> list[Path]:
    """Write the rows' results.json: at ``path`` itself where it names a .json file (one row),
    else ``path/<submission>/results.json`` each, leaving every other submission's folder as
    it is. Returns the files written. A file there that holds exercises this run did not grade
    is kept as it is (ValueError, once the others are written). A row whose results cannot be written gets one that says
    so and gives no credit."""
    if path.suffix == ".json" and not path.is_dir():
        if len(rows) != 1:
            raise ValueError(f"{path} names one results.json, for one submission; {len(rows)} were graded")
        targets = [path]
    else:
        targets = [path / row.submission / "results.json" for row in rows]
    written, kept = [], []
    for row, target in zip(rows, targets):
        others = sorted(set(graded_in(target)) - {v.exercise for v in row.verdicts})
        if others:  # a regrade of fewer exercises: their results would be lost
            kept.append(f"{target} (it holds {', '.join(others)})")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_results_text(row, scoring, sandboxed), encoding="utf-8")
        written.append(target)
    if kept:
        raise ValueError(f"kept as they were, since this run did not grade every exercise they hold: "
                         f"{'; '.join(kept)}. Regrade those submissions with the class's --exercises to "
                         "rewrite their results.json")
    return written


def graded_in(path: Path) -> list[str]:
    """The exercises a results.json this grader wrote at ``path`` holds a test of (its tests are
    named "<exercise>: <status>"); none where there is no such file or it cannot be read as one."""
    try:
        with open(path, encoding="utf-8") as f:
            tests = json.loads(f.read(2 * MAX_BYTES)).get("tests", [])
        names = [t["name"] for t in tests]
    except (OSError, ValueError, AttributeError, TypeError, KeyError):
        return []
    return [n.split(":")[0] for n in names if isinstance(n, str) and n.split(":")[0] in exercises.BY_ID]


def _results_text(row: Row, scoring: Scoring, sandboxed: bool) -> str:
    try:
        return text(results(row, scoring, sandboxed))
    except Exception as exc:  # noqa: BLE001 - this row's file says so; the others are written
        return text({"score": 0.0, "output": f"the grader could not write this submission's verdicts "
                     f"({type(exc).__name__}); ask your instructor to grade it again."})
