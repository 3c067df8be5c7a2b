"""`grader list`: every exercise with its status, from the progress the checks recorded."""
import argparse

from grader import exercises, progress
from grader.arguments import implementation_spec
from grader.implementation import DEFAULT_IMPL, has_reference
from grader.release import student

AUTOGRADERS = "autograder's to check"  # the status of a written exercise only the autograder checks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--impl", default=DEFAULT_IMPL, type=implementation_spec,
                        help="lessons (default), solutions, a module name or a path to a .py file")


def run(options: argparse.Namespace) -> int:
    print(f"{'lesson':<7} {'exercise':<28} {'status':<24} what you build   (impl: {options.impl})")
    for exercise in exercises.EXERCISES:
        status = progress.status(exercise, options.impl)
        if status == progress.UNCHECKED and not student.checked_here(exercise.id):
            status = AUTOGRADERS  # a release without the reference cannot check it
        print(f"{exercise.lesson:<7} {exercise.id:<28} {status:<24} {exercise.title}")
    print("\nRun `grader check EXERCISE` after each step; `grader check` checks them all.")
    if not has_reference():
        print(student.public_summary())
    return 0
