"""What ``grader grade`` writes for an instructor from a class's rows: the table printed,
the CSV, and Gradescope's results.json. Everything here reads verdicts decided already;
nothing of a submission runs here."""
import csv
import json
from pathlib import Path

from grader.grade import Row
from grader.verdict import Verdict, format_text

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that begins so


SANDBOXED = "graded in the sandbox (bubblewrap)"
UNSANDBOXED = ("graded WITHOUT a sandbox (--no-sandbox): each submission's code ran as the "
               "grading user, and could have reached the grader's files and other submissions")


def cell(verdict: Verdict) -> str:
    """A verdict in the table: status, properties held / evaluated from outputs, and apart
    those judged from observations in the process that ran the learner's code."""
    if not verdict.properties:
        return verdict.status
    decided = verdict.properties - len(verdict.observed)
    failed = len(verdict.findings) - verdict.observed_failed
    text = f"{verdict.status} {decided - failed}/{decided} held"
    if verdict.observed:
        observed = len(verdict.observed)
        text += f" +{observed - verdict.observed_failed}/{observed} observed"
    return text


def table(rows: list[Row], sandboxed: bool = True) -> str:
    """Submission × exercise: each verdict's ``cell``, the checks passed, and how graded."""
    exercise_ids = [v.exercise for v in rows[0].verdicts] if rows else []
    header = ["submission", *exercise_ids, "passed"]
    lines = [header]
    for row in rows:
        cells = [cell(v) for v in row.verdicts]
        lines.append([row.submission, *cells, f"{sum(v.passed for v in row.verdicts)}/{len(cells)}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    body = "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)
    return (f"{body}\n\n{SANDBOXED if sandboxed else UNSANDBOXED}. \"held\": properties "
            "decided from your code's outputs; \"observed\": judged from what was observed "
            "inside the process that ran it (forwards fed, host reads, compiled graphs).")


def write_csv(rows: list[Row], path: Path, sandboxed: bool = True) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["submission", "exercise", "status", "properties", "failed",
                         "observed_properties", "observed_failed", "sandboxed", "seconds",
                         "summary", "failing properties (with hints)", "reference files opened"])
        for row in rows:
            for v in row.verdicts:
                writer.writerow([inert(row.submission), v.exercise, v.status, v.properties,
                                 len(v.findings), len(v.observed), v.observed_failed,
                                 "yes" if sandboxed else "no (--no-sandbox)", f"{v.seconds:.1f}",
                                 inert(v.summary), inert("; ".join(
                                     f"{f.property}: {f.hint}" if f.hint else f.property
                                     for f in v.findings)),
                                 inert("; ".join(v.reference_opened))])


def inert(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that would start a formula gets a quote."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def gradescope_results(row: Row, sandboxed: bool = True) -> dict:
    """A Gradescope autograder ``results.json``: one test per exercise, 1 point if it passed."""
    tests = [{"name": v.exercise, "score": float(v.passed), "max_score": 1.0,
              "status": "passed" if v.passed else "failed",
              "output": format_text(v, verbose=True, timing=False)} for v in row.verdicts]
    return {"score": sum(t["score"] for t in tests), "tests": tests,
            "output": SANDBOXED if sandboxed else UNSANDBOXED}


def write_gradescope(rows: list[Row], path: Path, sandboxed: bool = True) -> None:
    """One submission: ``path`` is its results.json. Several: ``path`` is a folder with
    ``<submission>/results.json`` each."""
    if len(rows) == 1:
        path.write_text(_results_text(rows[0], sandboxed))
        return
    for row in rows:
        (path / row.submission).mkdir(parents=True, exist_ok=True)
        (path / row.submission / "results.json").write_text(_results_text(row, sandboxed))


def _results_text(row: Row, sandboxed: bool) -> str:
    """A row's results.json; if its verdicts cannot be written out, one that says so and
    gives no credit (the other rows' are written all the same)."""
    try:
        return json.dumps(gradescope_results(row, sandboxed), indent=2)
    except Exception as exc:
        return json.dumps({"score": 0.0, "output": f"the grader could not write this submission's "
                           f"verdicts ({type(exc).__name__}); ask the instructor to grade it again."})
