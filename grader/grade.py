"""``grader grade``: grade a class's submissions, each in its own runner, for credit.

A submission is a directory holding a ``lessons/`` package (at its top or one level
down), or a zip of one; a folder of such submissions grades them all. Each is copied to a
private folder (the learner's files are only read), then graded by a decider process
of its own, in parallel over ``jobs`` processes: its runner imports that copy's
``lessons`` and refuses ``solutions`` (grading mode), under each check's time limit, so
one submission's crash, hang or flood never touches another's row.
"""
import csv
import json
import multiprocessing
import shutil
import tempfile
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grader.decider import run_isolated
from grader.verdict import ERROR, Verdict


class SubmissionError(ValueError):
    """A path that holds no submission."""


@dataclass
class Row:
    submission: str
    verdicts: list[Verdict]


def submissions(paths: list[str]) -> dict[str, Path]:
    """{name: path} of the submissions ``paths`` name: each a submission itself (a zip, or
    a folder with ``lessons/`` at its top), or a folder whose entries (folders and zips)
    are submissions, their ``lessons/`` at their top or one level down."""
    found: dict[str, Path] = {}
    for text in paths:
        path = Path(text)
        if not path.exists():
            raise SubmissionError(f"no file or folder at {text!r}; expected a submission (a folder "
                                  "holding lessons/, or a zip of one) or a folder of submissions")
        if path.suffix == ".zip" or (path / "lessons" / "__init__.py").is_file():
            found[path.stem] = path
            continue
        entries = sorted(p for p in path.iterdir() if p.is_dir() or p.suffix == ".zip")
        if not entries:
            raise SubmissionError(f"{text!r} holds no lessons/ package and no submissions")
        found.update((entry.stem, entry) for entry in entries)
    return found


def lessons_root(path: Path) -> Path | None:
    """The folder whose ``lessons/`` package a submission holds, if it holds one."""
    if not path.is_dir():
        return None
    for root in [path, *sorted(p for p in path.iterdir() if p.is_dir())]:
        if (root / "lessons" / "__init__.py").is_file():
            return root
    return None


def grade_one(name: str, path: Path, exercise_ids: list[str], seed: int,
              timeout: float | None) -> Row:
    """One submission's verdicts, from a copy of it (a zip is extracted; zipfile keeps every
    member inside the folder)."""
    with tempfile.TemporaryDirectory(prefix="grade-") as folder:
        copy = Path(folder) / "submission"
        try:
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as archive:
                    archive.extractall(copy)
            else:
                shutil.copytree(path, copy, symlinks=False)
        except (OSError, zipfile.BadZipFile) as exc:
            return Row(name, [Verdict(e, ERROR, f"the submission could not be read: {exc}", seed)
                              for e in exercise_ids])
        root = lessons_root(copy)
        if root is None:
            return Row(name, [Verdict(e, ERROR, "the submission holds no lessons/ package "
                                      "(lessons/__init__.py)", seed) for e in exercise_ids])
        verdicts = list(run_isolated(exercise_ids, "lessons", seed, timeout, grading=True,
                                     import_root=root))
    return Row(name, verdicts)


def grade(found: dict[str, Path], exercise_ids: list[str], seed: int, jobs: int,
          timeout: float | None = None) -> list[Row]:
    """The rows of the submissions ``found`` ({name: path}), in that order."""
    # spawn, not fork: a forked copy of a process that runs torch can deadlock
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(grade_one, name, path, exercise_ids, seed, timeout)
                   for name, path in found.items()]
        return [future.result() for future in futures]


def table(rows: list[Row]) -> str:
    """Submission × exercise: status and properties held (or the count that failed)."""
    exercise_ids = [v.exercise for v in rows[0].verdicts] if rows else []
    header = ["submission", *exercise_ids, "passed"]
    lines = [header]
    for row in rows:
        cells = [f"{v.status} {v.properties - len(v.findings)}/{v.properties}" if v.properties
                 else v.status for v in row.verdicts]
        lines.append([row.submission, *cells, f"{sum(v.passed for v in row.verdicts)}/{len(cells)}"])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
                     for line in lines)


def write_csv(rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["submission", "exercise", "status", "properties", "failed", "seconds", "summary"])
        for row in rows:
            for v in row.verdicts:
                writer.writerow([row.submission, v.exercise, v.status, v.properties,
                                 len(v.findings), f"{v.seconds:.1f}", v.summary])


def gradescope_results(row: Row) -> dict:
    """A Gradescope autograder ``results.json``: one test per exercise, 1 point if it passed."""
    tests = [{"name": v.exercise, "score": float(v.passed), "max_score": 1.0,
              "status": "passed" if v.passed else "failed", "output": v.summary} for v in row.verdicts]
    return {"score": sum(t["score"] for t in tests), "tests": tests}


def write_gradescope(rows: list[Row], path: Path) -> None:
    """One submission: ``path`` is its results.json. Several: ``path`` is a folder with
    ``<submission>/results.json`` each."""
    if len(rows) == 1:
        path.write_text(json.dumps(gradescope_results(rows[0]), indent=2))
        return
    for row in rows:
        (path / row.submission).mkdir(parents=True, exist_ok=True)
        (path / row.submission / "results.json").write_text(json.dumps(gradescope_results(row), indent=2))
