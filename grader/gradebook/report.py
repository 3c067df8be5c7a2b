"""What ``grader grade`` prints for an instructor: the table of submission × exercise, and the
class summary (pass rate per exercise, the properties most failed, what was refused), which
is also written (``--summary``). Every name and text is made printable first: a submission's
name and a runner's messages may hold escape codes."""
from collections import Counter

from grader.grade import Row
from grader.gradebook.results import SANDBOXED, UNSANDBOXED
from grader.gradebook.scoring import Scoring, shown
from grader.verdict import ERROR, FAILED, NOT_DEFINED, NOT_STARTED, PASSED, Verdict, printable

NAME_WIDTH = 40  # characters of a submission's name in the table
MOST_FAILED = 10  # properties listed in the summary


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
    """The class at a glance, for the submissions graded in this run: mean points, each
    exercise's pass rate and statuses, the properties most failed (by how many submissions
    failed each), and the submissions refused, with why."""
    worth = sum(scoring.points.values())
    mean = sum(scoring.earned(v) for r in rows for v in r.verdicts) / max(1, len(rows))
    lines = [f"Class summary: {len(rows)} submission(s) graded in this run"
             + (f", {len(refused)} refused" if refused else "") + f"; mean {mean:.2f} of {shown(worth)} points."]
    statuses = (PASSED, FAILED, ERROR, NOT_STARTED, NOT_DEFINED)
    table = [["exercise", "pass rate", *statuses, "mean points"]]
    for exercise_id in scoring.points:
        verdicts = [v for r in rows for v in r.verdicts if v.exercise == exercise_id]
        counts = Counter(v.status for v in verdicts)
        rate = f"{counts[PASSED]}/{len(verdicts)}" + (f" ({counts[PASSED] / len(verdicts):.0%})" if verdicts else "")
        points = sum(scoring.earned(v) for v in verdicts) / max(1, len(verdicts))
        table.append([exercise_id, rate, *(str(counts[s]) for s in statuses),
                      f"{points:.2f}/{shown(scoring.worth(exercise_id))}"])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in table]
    failing = Counter((v.exercise, f.name) for r in rows for v in r.verdicts
                      for f in {f.name: f for f in v.findings}.values())  # a submission counts once
    if failing:
        lines.append("Properties most failed (submissions failing each):")
        lines += [f"  {count} of {len(rows)}: {exercise_id}: {printable(name, 200, one_line=True)}"
                  for (exercise_id, name), count in failing.most_common(MOST_FAILED)]
    if refused:
        lines.append("Refused (not graded):")
        lines += [f"  {printable(why, 1000, one_line=True)}" for why in refused]
    return "\n".join(lines)
