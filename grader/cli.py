"""The `grader` command: check exercises, list progress, bench and demo."""
import argparse
import sys

from grader import exercises, progress
from grader.implementation import DEFAULT_IMPL
from grader.isolation import DEFAULT_TIMEOUT, run_isolated
from grader.verdict import COMING, SYMBOLS, format_text, to_json

DEFAULT_SEED = 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grader", description="Check your speculative decoding "
                                     "exercises against exact laws, with statistics.")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="check exercises (all when none is named)")
    check.add_argument("exercises", nargs="*", metavar="EXERCISE",
                       help="exercise ids: " + ", ".join(exercises.BY_ID))
    check.add_argument("--impl", default=DEFAULT_IMPL,
                       help="lessons (default), solutions, a module name or a path to a .py file")
    check.add_argument("--seed", type=int, default=DEFAULT_SEED,
                       help="seed of every random draw; change it to draw afresh")
    check.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                       help=f"seconds allowed per check (default {DEFAULT_TIMEOUT:g})")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("-v", "--verbose", action="store_true", help="every finding and traceback")

    listing = commands.add_parser("list", help="every exercise with its status")
    listing.add_argument("--impl", default=DEFAULT_IMPL)

    bench = commands.add_parser("bench", help="time speculative decoding against autoregressive "
                                "decoding and HF assisted generation")
    from grader.bench_command import add_arguments
    add_arguments(bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "list":
        return list_exercises(args.impl)
    if args.command == "bench":
        from grader.bench_command import run
        return run(args)
    return check(parser, args)


def check(parser: argparse.ArgumentParser, args) -> int:
    unknown = [e for e in args.exercises if e not in exercises.BY_ID]
    if unknown:
        parser.error(f"unknown exercise {', '.join(unknown)}; expected: {', '.join(exercises.BY_ID)}")
    if args.timeout <= 0:
        parser.error("--timeout must be a positive number of seconds")
    selected = [exercises.BY_ID[e] for e in args.exercises] or list(exercises.EXERCISES)
    coming = [e.id for e in selected if e.check is None]
    runnable = [e.id for e in selected if e.check is not None]
    if coming and not args.json:
        print(f"{SYMBOLS[COMING]} coming: {', '.join(coming)} (these checks do not exist yet)")
    verdicts = []
    for verdict in run_isolated(runnable, args.impl, args.seed, args.timeout):
        verdicts.append(verdict)
        if not args.json:
            print(format_text(verdict, args.verbose), flush=True)
    progress.record(verdicts, args.impl, exercises.BY_ID)
    if args.json:
        print(to_json(verdicts))
    elif len(verdicts) > 1:
        passed = sum(v.passed for v in verdicts)
        print(f"{passed} of {len(verdicts)} checks passed (seed {args.seed}).")
    return 0 if verdicts and all(v.passed for v in verdicts) and not (coming and args.exercises) else 1


def list_exercises(impl: str) -> int:
    print(f"{'lesson':<7} {'exercise':<28} {'status':<24} what you build   (impl: {impl})")
    for exercise in exercises.EXERCISES:
        status = progress.status(exercise, impl)
        print(f"{exercise.lesson:<7} {exercise.id:<28} {status:<24} {exercise.title}")
    print("\nRun `grader check EXERCISE` after each step; `grader check` checks them all.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
