"""The class's two CSVs: the long one (one row per submission and exercise: the verdict's
evidence) and the wide gradebook (one row per submission: who, points per exercise, total,
seed), which an LMS takes. Both merge into the file already at their path, exercise by
exercise: what was graded now replaces the same submission's row for that exercise (in the long
CSV) or its cell (in the gradebook, whose total and max are then summed again), and every other
row and cell stays, so regrading one student, or one exercise of one student, never removes
another's grade. Each cell is printable text (``printable``), at most CELL_LIMIT characters,
and never starts a spreadsheet formula (``inert``); a file is replaced whole, once written."""
import csv
import math
import os
import tempfile
from pathlib import Path

from grader import exercises
from grader.grade import Row
from grader.gradebook.scoring import Scoring, shown
from grader.verdict import ERROR, printable

CELL_LIMIT = 16 * 1024  # characters of one cell: Python's csv reads up to 128 KB a field
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet runs a cell that begins so
LONG = ["submission", "exercise", "status", "points", "max_points", "properties", "failed",
        "observed_properties", "observed_failed", "sandboxed", "seconds", "seed", "summary",
        "failing properties (with hints)", "reference files opened", "failed property names"]
EARLIER_LONG = LONG[:-1]  # the long CSV before the failed properties' names had a column: merged into
# still (its rows get the column blank), and written anew with it
WHO = ["submission", "id", "name", "email"]
TOTALS = ["total", "max", "seed"]
LONG_HEADER = (lambda h: h in (LONG, EARLIER_LONG), f"its header is not {LONG[:3]}…")  # (fits, else said)
WIDE_HEADER = (lambda h: h[:len(WHO)] == WHO and h[-len(TOTALS):] == TOTALS,
               f"its header does not begin {WHO} and end {TOTALS}")


class SheetError(ValueError):
    """A CSV that cannot be merged into: the message names it and what to do."""


def inert(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one that would start a formula gets a quote."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def cell(value) -> str:
    return inert(printable(str(value), CELL_LIMIT))


def long_rows(rows: list[Row], scoring: Scoring, sandboxed: bool) -> list[list[str]]:
    """Every verdict's row of the long CSV; a verdict that cannot be written (whatever it holds)
    gets a row saying so, and the others are written all the same."""
    written = []
    for row in rows:
        for v in row.verdicts:
            try:
                written.append([cell(x) for x in (
                    row.submission, v.exercise, v.status, shown(scoring.earned(v)),
                    shown(scoring.worth(v.exercise)), v.properties, len(v.findings), len(v.observed),
                    v.observed_failed, "yes" if sandboxed else "no (--no-sandbox)", f"{v.seconds:.1f}", v.seed,
                    v.summary, "; ".join(f"{f.property}: {f.hint}" if f.hint else f.property for f in v.findings),
                    "; ".join(v.reference_opened), failed_names(v))])
            except Exception as exc:  # noqa: BLE001 - one verdict never stops the class's file
                said = {"submission": cell(row.submission), "exercise": cell(getattr(v, "exercise", "?")),
                        "status": ERROR, "points": "0", "summary": f"the grader could not write this verdict "
                        f"({type(exc).__name__}); grade this submission again"}
                written.append([said.get(column, "") for column in LONG])
    return written


def failed_names(verdict) -> str:
    """The names of the properties ``verdict`` failed, one a line, each once: what the class
    summary counts (grader/gradebook/report.py), read back from the merged long CSV."""
    return "\n".join(dict.fromkeys(printable(f.name, 300, one_line=True) for f in verdict.findings))


def wide_rows(rows: list[Row], scoring: Scoring) -> tuple[list[str], list[list[str]]]:
    """The gradebook's header and one row per submission: who, points per exercise, total, max, seed."""
    graded = list(scoring.points)
    written = []
    for row in rows:
        earned = {v.exercise: scoring.earned(v) for v in row.verdicts}
        written.append([cell(row.submission), *(cell(row.student.get(k, "")) for k in WHO[1:]),
                        *(shown(earned[e]) if e in earned else "" for e in graded),
                        shown(round(sum(earned.values()), 4)),
                        shown(round(sum(scoring.worth(e) for e in graded), 4)),
                        "" if row.seed is None else str(row.seed)])
    return [*WHO, *graded, *TOTALS], written


def merged_long(rows: list[Row], path: Path | None, scoring: Scoring, sandboxed: bool = True) -> list[list[str]]:
    """The long CSV's rows once ``rows`` are merged into the file at ``path`` (``rows``' alone
    where ``path`` is None or names no file yet). Raises SheetError where the file there is
    not one this grader writes."""
    written = long_rows(rows, scoring, sandboxed)
    if path is None:
        return written
    _, kept = _existing(path, *LONG_HEADER)
    regraded = {(r[0], r[1]) for r in written}
    merged = [r + [""] * (len(LONG) - len(r)) for r in kept if (r[0], r[1]) not in regraded] + written
    order = _exercise_order()
    return _grouped(merged, within=lambda r: order.get(r[1], len(order)))


def write_long(rows: list[Row], path: Path, scoring: Scoring, sandboxed: bool = True) -> None:
    write_long_table(path, merged_long(rows, path, scoring, sandboxed))


def write_long_table(path: Path, table: list[list[str]]) -> None:
    """Write the long CSV's rows ``table`` (``merged_long``'s) at ``path``, replacing it whole."""
    _replace(path, LONG, table)


def write_wide(rows: list[Row], path: Path, scoring: Scoring) -> None:
    header, written = wide_rows(rows, scoring)
    old, kept = _existing(path, *WIDE_HEADER)
    # the exercises of both, in the course's order (any other column the file had after them);
    # a row lacking one leaves it blank
    inner = dict.fromkeys([*old[len(WHO):-len(TOTALS)], *header[len(WHO):-len(TOTALS)]])
    order = _exercise_order()
    columns = [*WHO, *sorted(inner, key=lambda c: order.get(c, len(order))), *TOTALS]
    earlier = {r[0]: dict(zip(old, r)) for r in kept}
    regraded = [_regraded(dict(zip(header, r)), earlier.get(r[0], {}), header, scoring) for r in written]
    merged = [[row.get(column, "") for column in columns] for row in regraded]
    keys = {r[0] for r in merged}
    _replace(path, columns, _grouped([_placed(r, old, columns) for r in kept if r[0] not in keys] + merged))


def exercises_in(long: Path | None, wide: Path | None) -> list[str]:
    """The exercises the class's CSVs at ``long`` and ``wide`` already hold (none from a path
    that is None, names no file, or holds no CSV this grader writes: writing it says so)."""
    found: list[str] = []
    for path, header, held in ((long, LONG_HEADER, lambda _, rows: [r[1] for r in rows]),
                               (wide, WIDE_HEADER, lambda columns, _: columns[len(WHO):-len(TOTALS)])):
        try:
            found += held(*_existing(path, *header)) if path is not None else []
        except SheetError:
            continue
    return list(dict.fromkeys(found))


def _regraded(now: dict[str, str], before: dict[str, str], header: list[str], scoring: Scoring) -> dict[str, str]:
    """A submission's gradebook row once graded now (``now``, by column) is merged into its row
    in the file (``before``; {} where it had none): the exercises graded now take their new cells,
    the others keep theirs, as does any cell blank now (who it is, where no roster says); the total is
    the sum of its exercise cells and the max grows by the worth of each exercise new to the row
    (an exercise graded again is assumed worth what it was: regrade under the class's config)."""
    if not before:
        return now
    graded = [e for e in header[len(WHO):-len(TOTALS)] if now.get(e)]
    row = {**before, **{k: v for k, v in now.items() if v}}
    cells = [v for k, v in row.items() if k not in WHO and k not in TOTALS]
    row["total"] = shown(round(sum(_points(v) for v in cells), 4))
    row["max"] = shown(round(_points(before.get("max", "")) + sum(
        scoring.worth(e) for e in graded if not before.get(e)), 4))
    return row


def _points(value: str) -> float:
    """A points cell as a number ('' and a cell that is no number count as 0: a file edited by
    hand is read, never trusted to hold numbers)."""
    try:
        number = float(value)
    except ValueError:
        return 0.0
    return number if math.isfinite(number) else 0.0


def _exercise_order() -> dict[str, int]:
    return {e.id: i for i, e in enumerate(exercises.EXERCISES)}


def _placed(row: list[str], header: list[str], into: list[str]) -> list[str]:
    """``row`` (under ``header``) laid out under the columns ``into``."""
    values = dict(zip(header, row))
    return [values.get(column, "") for column in into]


def _grouped(rows: list[list[str]], within=lambda r: 0) -> list[list[str]]:
    """``rows`` grouped by submission in key order, a submission's own rows by ``within``
    (stable: as given where equal)."""
    return sorted(rows, key=lambda r: (r[0], within(r)))


def _existing(path: Path, fits, expected: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the CSV at ``path``, ([], []) where there is none. Raises SheetError
    where something else is there, so that it is never overwritten."""
    if not path.exists():
        return [], []
    if not path.is_file():
        raise SheetError(f"{path} is a folder, not a CSV: name a file to write")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            header, *rows = list(csv.reader(f)) or [[]]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SheetError(f"{path} is there and cannot be read as a CSV ({exc}); it was left as it "
                         "is: move it aside, or name another file") from None
    if not fits(header) or any(len(r) != len(header) for r in rows):
        raise SheetError(f"{path} is not a CSV this grader writes ({expected}, each row as long), so it "
                         "was left as it is: move it aside, or name another file")
    return header, [[cell(c) for c in r] for r in rows]  # as if written now: the file may have been edited


def _replace(path: Path, header: list[str], rows: list[list[str]]) -> None:
    """Write ``path`` whole through a file beside it, so that it is never left half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(rows)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
