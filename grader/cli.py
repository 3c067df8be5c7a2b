"""The `grader` command: check exercises, list progress, bench, demo and audit samplers, grade a
class, release the course and build its Gradescope autograder."""
import time

STARTED = time.monotonic()  # before the imports below: they are part of what a check costs

from grader import sources  # noqa: E402

sources.install()  # the console script's imports below, and every later one, run from source

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from grader import exercises, implementation, meanwhile, progress  # noqa: E402
from grader.bench import NEW_TOKENS, PROMPTS, QUICK_NEW_TOKENS, QUICK_PROMPTS  # noqa: E402
from grader.bench.timing import DEFAULT_THREADS  # noqa: E402
from grader.decider import GraderFilesChanged, run_isolated, sandbox  # noqa: E402
from grader.implementation import DEFAULT_IMPL  # noqa: E402
from grader.release import autograder, student  # noqa: E402
from grader.verdict import format_text, to_json  # noqa: E402

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
    check.add_argument("--timeout", type=float, default=None,
                       help=f"seconds allowed per check (default: the check's own limit, "
                            f"{exercises.TIME_LIMIT_FACTOR}x the reference's time, at least "
                            f"{exercises.MIN_TIME_LIMIT:g} s)")
    check.add_argument("--no-sandbox", action="store_true",
                       help="run your code outside the sandbox (it is used wherever it can run)")
    check.add_argument("--isolated", action="store_true",
                       help="each exercise on its own functions, as `grader grade` scores it: the "
                            "reference's steps stand in for your other exercises' (default: your own "
                            "whole chain, so that you see what your code does end to end)")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("-v", "--verbose", action="store_true", help="every finding and traceback")
    check.add_argument("--hint", type=int, nargs="?", const=2, default=1, metavar="LEVEL",
                       help="how many levels of each hint to show, the idea first, then closer to "
                            "the code (--hint alone: 2)")

    grading = commands.add_parser("grade", help="grade a class's submissions for credit (each "
                                  "in its own runner; a table, CSV, Gradescope results)")
    grading.add_argument("submissions", nargs="*", metavar="SUBMISSIONS",
                         help="a submission (a folder holding lessons/, or a zip of one) or a "
                              "folder of submissions")
    grading.add_argument("--exercises", nargs="+", default=None, metavar="EXERCISE",
                         help="the exercises to grade (default: all)")
    grading.add_argument("--secret-file", type=Path, default=None, metavar="FILE",
                         help="the grading secret every seed is derived from (HMAC): read from FILE "
                              "where it exists, else drawn and kept there (mode 0600). Default: drawn, "
                              "and kept beside the outputs; the path is printed")
    grading.add_argument("--config", type=Path, default=None, metavar="TOML",
                         help="points per exercise and partial credit (docs/grading.md); default: 1 "
                              "point each, shared by exercises that grade one function, partial credit")
    grading.add_argument("--jobs", type=int, default=1, help="submissions graded at once")
    grading.add_argument("--timeout", type=float, default=None, help="seconds allowed per check")
    grading.add_argument("--no-sandbox", action="store_true",
                         help="grade where no sandbox can run (each submission's code then runs as "
                              "you, with your files); said in the table, CSV and results.json")
    grading.add_argument("--csv", type=Path, default=None,
                         help="the long CSV: one row per submission and exercise (merged into the file there)")
    grading.add_argument("--gradebook", type=Path, default=None,
                         help="the wide CSV: one row per student, points per exercise, total, seed (merged)")
    grading.add_argument("--summary", type=Path, default=None, help="write the class summary here")
    grading.add_argument("--gradescope", type=Path, default=None,
                         help="Gradescope's results.json: this file where it ends in .json (one "
                              "submission), else a folder of <submission>/results.json")

    listing = commands.add_parser("list", help="every exercise with its status")
    listing.add_argument("--impl", default=DEFAULT_IMPL)

    bench = commands.add_parser("bench", help="time speculative decoding against autoregressive "
                                "decoding and HF assisted generation")
    add_bench_arguments(bench)

    demo = commands.add_parser("demo", help="speculative decoding on the shipped pair, coloured, "
                               "with its speedup measured on the spot")
    add_demo_arguments(demo)

    audit = commands.add_parser("audit", help="test any speculative sampler's output law (transformers' "
                                "assisted generation, its prompt lookup, your loops, your adapter), "
                                "with the power of the draws stated")
    from grader.audit.command import add_arguments as add_audit_arguments
    add_audit_arguments(audit)

    release = commands.add_parser("release", help="write the course for learners into OUT (lessons/ "
                                  "written from solutions/), with or without solutions/")
    student.add_arguments(release)
    zipped = commands.add_parser("autograder", help="write a Gradescope autograder zip (setup.sh, "
                                 "run_autograder with a private seed, the course)")
    autograder.add_arguments(zipped)
    return parser


def add_bench_arguments(parser) -> None:
    parser.add_argument("--pair", choices=["synthetic", "shipped"], default="synthetic",
                        help="synthetic: the built benchmark pair (default); shipped: the trained one")
    parser.add_argument("--target", help="a local directory or hub id (overrides --pair)")
    parser.add_argument("--drafter", help="a local directory or hub id (with --target)")
    parser.add_argument("--layers", type=int, default=24, help="synthetic target depth")
    parser.add_argument("--hidden", type=int, default=384, help="synthetic width")
    parser.add_argument("--divergence", type=float, default=0.01,
                        help="synthetic: scale of the later layers' output projections (sets α)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda if available)")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    parser.add_argument("--prompts", type=int, default=None,
                        help=f"held-out prompts (default {PROMPTS}; {QUICK_PROMPTS} with --quick)")
    parser.add_argument("--new-tokens", type=int, default=None,
                        help=f"tokens generated per prompt (default {NEW_TOKENS}; {QUICK_NEW_TOKENS} with --quick)")
    parser.add_argument("--gammas", default="1-8", help="γ values to sweep, e.g. 1-8 or 2,4")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions")
    parser.add_argument("--quick", action="store_true",
                        help=f"within 3 minutes on a 2-core CPU: {QUICK_PROMPTS} prompts x {QUICK_NEW_TOKENS} "
                             "tokens, 2 timed repetitions of the methods and 1 of the γ sweep, and lesson 7's "
                             "fast loops only with --fast (compiling them from an empty cache takes about "
                             "100 s). Its speedups run lower than the full bench's: a shorter text shares its "
                             "prompt's forward among fewer tokens, and its last rounds, cut short by the length "
                             "limit, weigh more"),
    parser.add_argument("--sampling", action="store_true", help="sample at T = 1 instead of greedy")
    parser.add_argument("--no-hf", action="store_true", help="skip HF assisted generation")
    parser.add_argument("--fast", action=argparse.BooleanOptionalAction, default=None,
                        help="time lesson 7's fast loops (static caches, compiled steps) too: the default "
                             "except under --quick. Their graphs stay in inductor's on-disk cache, so a later "
                             "run at the same γ (see --fast-gamma) compiles in seconds")
    parser.add_argument("--no-compile", action="store_true",
                        help="run lesson 7's fast loops eagerly (no compile time)")
    parser.add_argument("--fast-gamma", type=int, default=None,
                        help="γ of the fast speculative loop (default: the eager sweep's best; "
                             "each γ compiles its own verification step)")
    parser.add_argument("--trees", action="store_true",
                        help="also time lesson 9's token trees against chains of as many drafts")
    parser.add_argument("--eagle", action="store_true",
                        help="also time lesson 11's feature head (the shipped one; the shipped pair only): its "
                             "chain and its dynamic tree beside the drafter's chain")
    parser.add_argument("--batch", type=batch_sizes, default=None, metavar="B,B,…",
                        help="also time lesson 8's batched speculative decoding against batched "
                             "autoregressive decoding at these batch sizes, e.g. 1,2,4,8,16,32")
    parser.add_argument("--impl", default="solutions", help="whose generate functions to time")
    parser.add_argument("--plot", metavar="PATH", default=None, help="write the γ-sweep plot to PATH")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    add_threads_argument(parser)


def batch_sizes(text: str) -> list[int]:
    """``--batch``: a comma list of positive ints, returned sorted without repeats."""
    try:
        sizes = sorted({int(size) for size in text.split(",")})
    except ValueError:
        sizes = []
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"expected a comma list of batch sizes of at least 1, "
                                         f"such as 1,2,4,8; got {text!r}")
    return sizes


def add_demo_arguments(parser) -> None:
    parser.add_argument("prompt", nargs="?", default="def read_config(path):\n")
    parser.add_argument("--gamma", type=int, default=4)
    parser.add_argument("--max-gen-len", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each method")
    parser.add_argument("--target", help="a local directory or hub id instead of the shipped target")
    parser.add_argument("--drafter", help="a local directory or hub id instead of the shipped drafter")
    parser.add_argument("--device", default=None)
    parser.add_argument("--impl", default=None, help="whose speculative_generate to run (default: "
                        "solutions; in a release without the reference, your lessons, once finished)")
    add_threads_argument(parser)


def add_threads_argument(parser) -> None:
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"torch threads while timing (default {DEFAULT_THREADS}: the fastest "
                             "for these model sizes on a CPU)")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = run_command(parser, args)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return status
    except BrokenPipeError:  # `grader list | head`: the reader left; end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def entry() -> None:
    """The `grader` command: ``main``, then an exit that skips tearing down torch and
    transformers module by module (about 0.7 s after every check). Every file is closed by then."""
    from grader import sources
    sources.course_alone()  # the console script's path holds no working folder; PYTHONPATH may
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(status)


def run_command(parser: argparse.ArgumentParser, args) -> int:
    missing = student.missing_reference(args.command)
    if missing:
        print(f"✘ {missing}", file=sys.stderr)
        return 1
    if args.command in ("check", "list"):
        try:
            implementation.locate(args.impl)
        except implementation.ImplementationNotFound as exc:
            subparser(parser, args.command).error(f"--impl: {exc}")
    if args.command == "list":
        return list_exercises(args.impl)
    if args.command == "bench":
        if args.eagle and (args.pair != "shipped" or args.target):
            subparser(parser, "bench").error("--eagle needs --pair shipped (and no --target): the shipped "
                                             "feature head drafts for the shipped target only")
        from grader.bench.command import run
        return run(args, STARTED)
    if args.command == "demo":
        unfinished = demo_unfinished(args)
        if unfinished:
            print(f"✘ {unfinished}", file=sys.stderr)
            return 1
        from grader.bench.demo import run
        return run(args)
    if args.command == "grade":
        return grade(subparser(parser, "grade"), args)
    if args.command == "audit":
        from grader.audit.command import run
        return run(subparser(parser, "audit"), args)
    if args.command == "release":
        return student.run(subparser(parser, "release"), args)
    if args.command == "autograder":
        return autograder.run(subparser(parser, "autograder"), args)
    return check(subparser(parser, "check"), args)


def subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of one sub-command, whose `error` shows that sub-command's usage."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[command]


def check(parser: argparse.ArgumentParser, args) -> int:
    for unknown in (e for e in args.exercises if e not in exercises.BY_ID):
        parser.error(exercises.unknown_message(unknown))
    if args.timeout is not None and args.timeout <= 0:
        parser.error("--timeout must be a positive number of seconds")
    if args.isolated and args.impl == "solutions":
        parser.error("--isolated grades your code with the reference standing in for your other "
                     "exercises' steps; --impl solutions is the reference itself: drop one of them")
    if args.isolated and not implementation.has_reference():
        parser.error("--isolated runs the reference's steps in place of your other exercises' steps, and "
                     "this release leaves the reference out: check without it, on your own whole chain")
    runnable, autograder_only = student.public_split(args.exercises or [e.id for e in exercises.EXERCISES])
    if not args.json:  # a release without the reference: the checks that need it, one line each
        print("".join(f"· {line}\n" for line in autograder_only), end="", flush=True)
    unsandboxed = sandbox.why_unsandboxed(args.no_sandbox)
    if unsandboxed and not args.json:
        print(sandbox.UNSANDBOXED_NOTICE.format(why=unsandboxed), flush=True)
    verdicts = []
    try:
        for verdict in run_isolated(runnable, args.impl, args.seed, args.timeout, grading=args.isolated,
                                    sandboxed=not unsandboxed):
            verdicts.append(verdict)
            if not args.json:
                print(format_text(verdict, args.verbose, hints=args.hint), flush=True)
    except GraderFilesChanged as exc:
        print(f"✘ {exc}", file=sys.stderr)
        return 1
    progress.record(verdicts, args.impl, exercises.BY_ID)
    seconds, checking = time.monotonic() - STARTED, sum(v.seconds for v in verdicts)
    if args.json:
        print(student.with_autograder_only(to_json(verdicts, seconds), autograder_only))
    else:
        if len(verdicts) > 1:
            passed = sum(v.passed for v in verdicts)
            print(f"{passed} of {len(verdicts)} checks passed (seed {args.seed}).")
        if autograder_only:
            print(f"{len(autograder_only)} more need the reference: your course's autograder checks them.")
        print(f"{seconds:.1f} s in all: {checking:.1f} s checking, {seconds - checking:.1f} s "
              "starting Python, torch and the runner.")
    return 0 if verdicts and all(v.passed for v in verdicts) else 1


def grade(parser: argparse.ArgumentParser, args) -> int:
    from dataclasses import replace

    from grader import grade as grading
    from grader.gradebook import outputs, report, roster, scoring
    from grader.release.secret import SecretError

    # `--exercises a b DIR` takes DIR as an exercise: give paths back to the submissions
    while args.exercises and args.exercises[-1] not in exercises.BY_ID and Path(args.exercises[-1]).exists():
        args.submissions.append(args.exercises.pop())
    if not args.submissions:
        parser.error("name the submissions to grade: a folder holding lessons/, a zip, or a folder of them")
    for unknown in (e for e in args.exercises or () if e not in exercises.BY_ID):
        parser.error(exercises.unknown_message(unknown))
    if args.jobs < 1 or (args.timeout is not None and args.timeout <= 0):
        parser.error("--jobs and --timeout must be positive")
    try:
        found, refused = grading.submissions(args.submissions)
    except grading.SubmissionError as exc:
        parser.error(str(exc))
    for why in refused:  # the others are graded
        print(f"✘ {why}", file=sys.stderr)
    if not found:
        parser.error("no submission is left to grade (each one named was refused, as said above)")
    if args.gradescope and args.gradescope.suffix == ".json" and not args.gradescope.is_dir() and len(found) > 1:
        parser.error(f"--gradescope {args.gradescope} names one results.json; {len(found)} submissions need "
                     "a folder, one <submission>/results.json each")
    selected = args.exercises or [e.id for e in exercises.EXERCISES]
    try:
        points = scoring.load(args.config, selected)
        secret, drawn = outputs.grading_secret(args.secret_file)
    except (scoring.ConfigError, SecretError) as exc:
        parser.error(str(exc))
    why_not = sandbox.unavailable()
    if why_not and not args.no_sandbox:
        parser.error(f"the sandbox cannot run here ({why_not}), and grading for credit needs it: "
                     "a submission's code would run as you, with your files and the other "
                     "submissions. Install bubblewrap (see the README), or pass --no-sandbox to "
                     "grade anyway (the table, CSV and results.json then say so)")
    sandboxed = not args.no_sandbox

    def decided(row) -> None:  # its key is printable (grade.submissions)
        print(f"graded {row.submission}: {sum(v.passed for v in row.verdicts)} of {len(row.verdicts)} checks "
              f"passed, {scoring.shown(sum(points.earned(v) for v in row.verdicts))} of "
              f"{scoring.shown(sum(points.points.values()))} points", flush=True)

    try:
        rows = grading.grade(found, selected, secret, args.jobs, args.timeout, sandboxed, decided, points.draws)
    except GraderFilesChanged as exc:
        print(f"✘ {exc}", file=sys.stderr)
        return 1
    rows = [replace(row, seed=grading.submission_seed(secret, row.submission),
                    student=roster.student(found[row.submission])) for row in rows]
    print(report.table(rows, points, sandboxed))
    written = outputs.Outputs(args.csv, args.gradebook, args.summary, args.gradescope)
    summary, failures = outputs.write(rows, refused, points, sandboxed, written)  # the class as merged
    print(f"\n{summary}")
    try:
        print(outputs.keep(secret, args.secret_file, written) if drawn else
              f"Seeds derived from the grading secret in {args.secret_file}.")
    except SecretError as exc:
        failures.append(str(exc))
    for failure in failures:
        print(f"✘ {failure}", file=sys.stderr)
    return 1 if refused or failures else 0


def demo_unfinished(args) -> str:
    """Why `grader demo` cannot run its loops ("" when it can), its ``--impl`` settled: the
    reference's, or in a release without it the learner's own, which must then be finished."""
    if args.impl is None:
        args.impl = "solutions" if implementation.has_reference() else DEFAULT_IMPL
    try:
        loops = [implementation.load(args.impl, "speculative").speculative_generate,
                 implementation.load(args.impl, "autoregressive").autoregressive_generate]
    except Exception as exc:  # the learner's module: anything may go wrong importing it
        return f"`grader demo` could not import the loops of {args.impl}: {type(exc).__name__}: {exc}"
    return meanwhile.unfinished_loops(loops, "`grader demo`")


AUTOGRADERS = "autograder's to check"  # `grader list`'s status of a written exercise checked there alone


def list_exercises(impl: str) -> int:
    print(f"{'lesson':<7} {'exercise':<28} {'status':<24} what you build   (impl: {impl})")
    for exercise in exercises.EXERCISES:
        status = progress.status(exercise, impl)
        if status == progress.UNCHECKED and not student.checked_here(exercise.id):
            status = AUTOGRADERS  # a release without the reference cannot check it
        print(f"{exercise.lesson:<7} {exercise.id:<28} {status:<24} {exercise.title}")
    print("\nRun `grader check EXERCISE` after each step; `grader check` checks them all.")
    if not implementation.has_reference():
        print(student.public_summary())
    return 0


if __name__ == "__main__":
    entry()
