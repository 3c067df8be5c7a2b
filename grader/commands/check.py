"""`grader check [EXERCISE ...]`: check exercises in the sandboxed runner and print each verdict."""
import argparse
import sys
import time

from grader import exercises, progress
from grader.arguments import (
    UsageError,
    exercise_id,
    implementation_spec,
    positive_seconds,
)
from grader.decider import GraderFilesChanged, run_isolated, sandbox
from grader.implementation import DEFAULT_IMPL, has_reference
from grader.release import student
from grader.verdict import format_text, to_json

DEFAULT_SEED = 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("exercises", nargs="*", metavar="EXERCISE", type=exercise_id,
                        help="exercise ids: " + ", ".join(exercises.BY_ID))
    parser.add_argument("--impl", default=DEFAULT_IMPL, type=implementation_spec,
                        help="lessons (default), solutions, a module name or a path to a .py file")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help="seed of every random draw; change it to draw afresh")
    parser.add_argument("--timeout", type=positive_seconds, default=None,
                        help=f"seconds allowed per check (default: the check's own limit, "
                             f"{exercises.TIME_LIMIT_FACTOR}x the reference's time, at least "
                             f"{exercises.MIN_TIME_LIMIT:g} s)")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run your code outside the sandbox (it is used wherever it can run)")
    parser.add_argument("--isolated", action="store_true",
                        help="each exercise on its own functions, as `grader grade` scores it: the "
                             "reference's steps stand in for your other exercises' (default: your own "
                             "whole chain, so that you see what your code does end to end)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-v", "--verbose", action="store_true", help="every finding and traceback")
    parser.add_argument("--hint", type=int, nargs="?", const=2, default=1, metavar="LEVEL",
                        help="how many levels of each hint to show, the idea first, then closer to "
                             "the code (--hint alone: 2)")


def run(options: argparse.Namespace) -> int:
    """Check ``options.exercises`` (all when none); 0 iff every check passed."""
    if options.isolated and options.impl == "solutions":
        raise UsageError("--isolated grades your code with the reference standing in for your other "
                         "exercises' steps; --impl solutions is the reference itself: drop one of them")
    if options.isolated and not has_reference():
        raise UsageError("--isolated runs the reference's steps in place of your other exercises' steps, and "
                         "this release leaves the reference out: check without it, on your own whole chain")
    runnable, autograder_only = student.public_split(options.exercises or [e.id for e in exercises.EXERCISES])
    if not options.json:  # a release without the reference: the checks that need it, one line each
        print("".join(f"· {line}\n" for line in autograder_only), end="", flush=True)
    unsandboxed = sandbox.why_unsandboxed(options.no_sandbox)
    if unsandboxed and not options.json:
        print(sandbox.UNSANDBOXED_NOTICE.format(why=unsandboxed), flush=True)
    verdicts = []
    try:
        for verdict in run_isolated(runnable, options.impl, options.seed, options.timeout, grading=options.isolated,
                                    sandboxed=not unsandboxed):
            verdicts.append(verdict)
            if not options.json:
                print(format_text(verdict, options.verbose, hints=options.hint), flush=True)
    except GraderFilesChanged as exc:
        print(f"✘ {exc}", file=sys.stderr)
        return 1
    progress.record(verdicts, options.impl, exercises.BY_ID)
    seconds, checking = time.monotonic() - options.started, sum(v.seconds for v in verdicts)
    if options.json:
        print(student.with_autograder_only(to_json(verdicts, seconds), autograder_only))
    else:
        if len(verdicts) > 1:
            passed = sum(v.passed for v in verdicts)
            print(f"{passed} of {len(verdicts)} checks passed (seed {options.seed}).")
        if autograder_only:
            print(f"{len(autograder_only)} more need the reference: your course's autograder checks them.")
        print(f"{seconds:.1f} s in all: {checking:.1f} s checking, {seconds - checking:.1f} s "
              "starting Python, torch and the runner.")
    return 0 if verdicts and all(v.passed for v in verdicts) else 1
