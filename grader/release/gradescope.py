"""What an autograder's ``run_autograder`` runs on Gradescope, for one submission.

Gradescope lays out a folder (``/autograder``): ``source/`` (the autograder zip, unpacked),
``submission/`` (the learner's files), ``submission_metadata.json``, and ``results/``, where it
reads ``results.json``. This finds the learner's ``lessons/`` (at the submission's top, or one
folder down, where a zip of a folder unpacks it), grades it with ``grader grade`` (sandboxed,
unless the zip was built with ``--no-sandbox``), and makes sure ``results.json`` says
something: where no submission was found or grading stopped before writing it, a result with
no credit says why. Its seeds come from a secret of its own, derived from the zip's secret and
Gradescope's id of the submission (``submission_secret``), handed to ``grader grade`` through
a pipe, never a file. ``python -m grader.release.gradescope FOLDER --secret-file FILE
[--config TOML] [--exercises ...] [--no-sandbox]``.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

from grader.release import secret

NO_LESSONS = ("Your submission holds no lessons/ package (lessons/__init__.py at its top, or one folder "
              "down): hand in your lessons/ folder, zipped, or the repository that holds it.")
SAID = 3000  # characters of the grader's own output a failure's result shows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.release.gradescope", description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="Gradescope's folder (/autograder)")
    parser.add_argument("--secret-file", type=Path, required=True, help="the instructor's grading secret")
    parser.add_argument("--config", type=Path, default=None, help="the grading config (TOML)")
    parser.add_argument("--exercises", nargs="+", default=[], help="the exercises graded (default: all)")
    parser.add_argument("--no-sandbox", action="store_true", help="grade without the sandbox (said in the results)")
    args = parser.parse_args(argv)
    results = args.folder / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    found = lessons_folder(args.folder / "submission")
    if found is None:
        fail(results, NO_LESSONS)
        return 0
    try:
        key = submission_secret(secret.read(args.secret_file), args.folder / "submission_metadata.json")
    except secret.SecretError as exc:
        fail(results, f"The autograder could not read its grading secret ({exc}); tell your instructor.")
        return 0
    command = [sys.executable, "-m", "grader", "grade", str(found), "--gradescope", str(results),
               "--secret-file", "/dev/stdin", *(["--config", str(args.config)] if args.config else []),
               *(["--exercises", *args.exercises] if args.exercises else []),
               *(["--no-sandbox"] if args.no_sandbox else [])]
    graded = subprocess.run(command, input=key.hex() + "\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    print(graded.stdout, end="")  # Gradescope shows it to the instructor
    if not results.is_file():
        fail(results, f"The grader stopped before it wrote your results (exit code {graded.returncode}); "
                      f"tell your instructor. It said:\n{graded.stdout[-SAID:]}")
    return 0


def lessons_folder(submission: Path) -> Path | None:
    """The folder holding the learner's ``lessons/``: the submission itself, or a folder in it."""
    candidates = [submission, *sorted(p for p in submission.iterdir() if p.is_dir())] if submission.is_dir() else []
    return next((c for c in candidates if (c / "lessons" / "__init__.py").is_file()), None)


def submission_secret(key: bytes, metadata: Path) -> bytes:
    """The secret of this submission's draws: the zip's ``key`` keyed with Gradescope's id of
    the submission (HMAC), so that each submission draws afresh (a chance failure of correct
    code is not repeated on resubmitting it), grading it again draws the same, and no seed a
    learner sees tells another's."""
    try:
        submission = json.loads(metadata.read_text()).get("id", "")
    except (OSError, ValueError, AttributeError):  # no metadata (graded outside Gradescope)
        submission = ""
    return secret.derive(key, str(submission))


def fail(results: Path, why: str) -> None:
    """A results.json that gives no credit and says why."""
    results.write_text(json.dumps({"score": 0.0, "output": why}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
