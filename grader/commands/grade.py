"""`grader grade SUBMISSIONS`: grade a class's submissions for credit, each in its own runner;
a table, the CSVs and Gradescope's results."""
import argparse
import sys
from pathlib import Path

from grader import exercises
from grader.arguments import UsageError, positive_int, positive_seconds
from grader.decider import GraderFilesChanged, sandbox


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submissions", nargs="*", metavar="SUBMISSIONS",
                        help="a submission (a folder holding lessons/, or a zip of one) or a "
                             "folder of submissions")
    parser.add_argument("--exercises", nargs="+", default=None, metavar="EXERCISE",
                        help="the exercises to grade (default: all)")
    parser.add_argument("--secret-file", type=Path, default=None, metavar="FILE",
                        help="the grading secret every seed is derived from (HMAC): read from FILE "
                             "where it exists, else drawn and kept there (mode 0600). Default: drawn, "
                             "and kept beside the outputs; the path is printed")
    parser.add_argument("--config", type=Path, default=None, metavar="TOML",
                        help="points per exercise and partial credit (docs/grading.md); default: 1 "
                             "point each, shared by exercises that grade one function, partial credit")
    parser.add_argument("--jobs", type=positive_int, default=1, help="submissions graded at once")
    parser.add_argument("--timeout", type=positive_seconds, default=None, help="seconds allowed per check")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="grade where no sandbox can run (each submission's code then runs as "
                             "you, with your files); said in the table, CSV and results.json")
    parser.add_argument("--csv", type=Path, default=None,
                        help="the long CSV: one row per submission and exercise (merged into the file there)")
    parser.add_argument("--gradebook", type=Path, default=None,
                        help="the wide CSV: one row per student, points per exercise, total, seed (merged)")
    parser.add_argument("--summary", type=Path, default=None, help="write the class summary here")
    parser.add_argument("--gradescope", type=Path, default=None,
                        help="Gradescope's results.json: this file where it ends in .json (one "
                             "submission), else a folder of <submission>/results.json")


def run(options: argparse.Namespace) -> int:
    """Grade ``options.submissions``; 0 unless a submission was refused or an output failed."""
    from dataclasses import replace

    from grader import grade as grading
    from grader.gradebook import outputs, report, roster, scoring, sheets
    from grader.release.secret import SecretError

    # `--exercises a b DIR` takes DIR as an exercise: give paths back to the submissions
    while (options.exercises and options.exercises[-1] not in exercises.BY_ID
           and Path(options.exercises[-1]).exists()):
        options.submissions.append(options.exercises.pop())
    if not options.submissions:
        raise UsageError("name the submissions to grade: a folder holding lessons/, a zip, or a folder of them")
    for unknown in (e for e in options.exercises or () if e not in exercises.BY_ID):
        raise UsageError(exercises.unknown_message(unknown))
    try:
        found, refused = grading.submissions(options.submissions)
    except grading.SubmissionError as exc:
        raise UsageError(str(exc)) from None
    for why in refused:  # the others are graded
        print(f"✘ {why}", file=sys.stderr)
    if not found:
        raise UsageError("no submission is left to grade (each one named was refused, as said above)")
    gradescope = options.gradescope
    if gradescope and gradescope.suffix == ".json" and not gradescope.is_dir() and len(found) > 1:
        raise UsageError(f"--gradescope {gradescope} names one results.json; {len(found)} submissions need "
                         "a folder, one <submission>/results.json each")
    selected = options.exercises or [e.id for e in exercises.EXERCISES]
    try:
        points = scoring.load(options.config, selected, sheets.exercises_in(options.csv, options.gradebook))
        secret, drawn = outputs.grading_secret(options.secret_file)
    except (scoring.ConfigError, SecretError) as exc:
        raise UsageError(str(exc)) from None
    why_not = sandbox.unavailable()
    if why_not and not options.no_sandbox:
        raise UsageError(f"the sandbox cannot run here ({why_not}), and grading for credit needs it: "
                         "a submission's code would run as you, with your files and the other "
                         "submissions. Install bubblewrap (see the README), or pass --no-sandbox to "
                         "grade anyway (the table, CSV and results.json then say so)")
    sandboxed = not options.no_sandbox

    def decided(row) -> None:  # its key is printable (grade.submissions)
        print(f"graded {row.submission}: {sum(v.passed for v in row.verdicts)} of {len(row.verdicts)} checks "
              f"passed, {scoring.shown(sum(points.earned(v) for v in row.verdicts))} of "
              f"{scoring.shown(sum(points.points.values()))} points", flush=True)

    try:
        rows = grading.grade(found, selected, secret, options.jobs, options.timeout, sandboxed, decided,
                             points.draws)
    except GraderFilesChanged as exc:
        print(f"✘ {exc}", file=sys.stderr)
        return 1
    rows = [replace(row, seed=grading.submission_seed(secret, row.submission),
                    student=roster.student(found[row.submission])) for row in rows]
    print(report.table(rows, points, sandboxed))
    written = outputs.Outputs(options.csv, options.gradebook, options.summary, gradescope)
    summary, failures = outputs.write(rows, refused, points, sandboxed, written)  # the class as merged
    print(f"\n{summary}")
    try:
        print(outputs.keep(secret, options.secret_file, written) if drawn else
              f"Seeds derived from the grading secret in {options.secret_file}.")
    except SecretError as exc:
        failures.append(str(exc))
    for failure in failures:
        print(f"✘ {failure}", file=sys.stderr)
    return 1 if refused or failures else 0
