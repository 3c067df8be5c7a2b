"""What ``grader grade`` prints for an instructor: the table of submission × exercise, and the
class summary (pass rate per exercise, the properties most failed, what was refused), which
is also written (``--summary``), computed from the long CSV's rows, merged: after a regrade it
covers the whole class. Every name and text is made printable first: a submission's
name and a runner's messages may hold escape codes."""
import math
from collections import Counter
from pathlib import Path

from grader import exercises
from grader.grade import Row
from grader.gradebook import sheets
from grader.gradebook.results import SANDBOXED, UNSANDBOXED
from grader.gradebook.scoring import Scoring, complete_properties, shown
from grader.verdict import ERROR, FAILED, NOT_DEFINED, NOT_STARTED, PASSED, Verdict, printable

NAME_WIDTH = 40  # characters of a submission's name in the table
MOST_FAILED = 10  # properties listed in the summary


def cell(verdict: Verdict) -> str:
    """A verdict in the table: status, properties held / evaluated from outputs, apart those
    judged from observations in the process that ran the learner's code, and how many of a
    complete run's a check that stopped early did not evaluate."""
    if not verdict.properties:
        return verdict.status
    decided = verdict.properties - len(verdict.observed)
    failed = len(verdict.findings) - verdict.observed_failed
    text = f"{verdict.status} {decided - failed}/{decided} held"
    if verdict.observed:
        observed = len(verdict.observed)
        text += f" +{observed - verdict.observed_failed}/{observed} observed"
    unevaluated = complete_properties(verdict.exercise) - verdict.properties
    if unevaluated > 0:  # a check stopped early: partial credit counts these as not held
        text += f", {unevaluated} not evaluated"
    return text


def table(rows: list[Row], scoring: Scoring, sandboxed: bool = True) -> str:
    """Submission × exercise: each verdict's ``cell``, the checks passed, the points, and how graded."""
    exercise_ids = list(scoring.points)
    lines = [["submission", *exercise_ids, "passed", "points"]]
    for row in rows:
        verdicts = {v.exercise: v for v in row.verdicts}
        lines.append([printable(row.submission, NAME_WIDTH, one_line=True),
                      *(printable(cell(verdicts[e]), 80, one_line=True) if e in verdicts else "-"
                        for e in exercise_ids),
                      f"{sum(v.passed for v in row.verdicts)}/{len(row.verdicts)}",
                      f"{shown(sum(scoring.earned(v) for v in row.verdicts))}/{shown(sum(scoring.points.values()))}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    body = "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)
    return (f"{body}\n\n{SANDBOXED if sandboxed else UNSANDBOXED}. \"held\": properties "
            "decided from your code's outputs; \"observed\": judged from what was observed "
            "inside the process that ran it (forwards fed, host reads, compiled graphs).")


def summary(rows: list[Row], scoring: Scoring, refused: list[str] = ()) -> str:
    """The class summary of the submissions graded in this run (``class_summary`` of their rows)."""
    return class_summary(sheets.long_rows(rows, scoring, True), scoring, refused, len(rows))


def class_summary(long: list[list[str]], scoring: Scoring, refused: list[str] = (), graded: int = 0,
                  source: Path | None = None) -> str:
    """The class at a glance from the long CSV's rows ``long`` (``sheets.merged_long``: after a
    regrade, the whole class as ``source`` now holds it, not only the ``graded`` submissions of
    this run): mean points, each exercise's pass rate and statuses, the properties most failed
    (by how many submissions failed each), and the submissions refused in this run, with why."""
    records = [dict(zip(sheets.LONG, row)) for row in long]
    keys = list(dict.fromkeys(r["submission"] for r in records))
    order = {e.id: i for i, e in enumerate(exercises.EXERCISES)}
    graded_ids = sorted({*scoring.points, *(r["exercise"] for r in records)}, key=lambda e: order.get(e, len(order)))
    worth = {e: scoring.worth(e) if e in scoring.points else
             max((_number(r["max_points"]) for r in records if r["exercise"] == e), default=0.0) for e in graded_ids}
    mean = sum(_number(r["points"]) for r in records) / max(1, len(keys))
    kept = len(keys) - graded
    whom = (f"{len(keys)} submission(s): {graded} graded in this run, {kept} as {source} held them"
            if kept > 0 and source else f"{len(keys)} submission(s) graded in this run")
    lines = [f"Class summary: {whom}" + (f", {len(refused)} refused" if refused else "")
             + f"; mean {mean:.2f} of {shown(sum(worth.values()))} points."]
    statuses = (PASSED, FAILED, ERROR, NOT_STARTED, NOT_DEFINED)
    table = [["exercise", "pass rate", *statuses, "mean points"]]
    for exercise_id in graded_ids:
        verdicts = [r for r in records if r["exercise"] == exercise_id]
        counts = Counter(r["status"] for r in verdicts)
        rate = f"{counts[PASSED]}/{len(verdicts)}" + (f" ({counts[PASSED] / len(verdicts):.0%})" if verdicts else "")
        points = sum(_number(r["points"]) for r in verdicts) / max(1, len(verdicts))
        table.append([printable(exercise_id, 60, one_line=True), rate, *(str(counts[s]) for s in statuses),
                      f"{points:.2f}/{shown(worth[exercise_id])}"])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in table]
    failing = Counter((r["exercise"], name) for r in records  # a submission counts once a property
                      for name in dict.fromkeys(r["failed property names"].split("\n")) if name)
    if failing:
        lines.append("Properties most failed (submissions failing each):")
        lines += [f"  {count} of {len(keys)}: {printable(exercise_id, 60, one_line=True)}: "
                  f"{printable(name, 200, one_line=True)}" for (exercise_id, name), count in failing.most_common(MOST_FAILED)]
    if refused:
        lines.append("Refused (not graded):")
        lines += [f"  {printable(why, 1000, one_line=True)}" for why in refused]
    return "\n".join(lines)


def _number(text: str) -> float:
    """A points cell read back (an edited file may hold anything there: then 0)."""
    try:
        value = float(text.lstrip("'"))
    except ValueError:
        return 0.0
    return value if math.isfinite(value) else 0.0
