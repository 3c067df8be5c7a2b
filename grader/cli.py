"""The `grader` command: check exercises, list progress, bench, demo and audit samplers, grade a
class, release the course and build its Gradescope autograder."""
import time

STARTED = time.monotonic()  # before the imports below: they are part of what a check costs

from grader import sources  # noqa: E402

sources.install()  # the console script's imports below, and every later one, run from source

import argparse  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

from grader.arguments import UsageError  # noqa: E402
from grader.audit import command as audit  # noqa: E402
from grader.bench import command as bench  # noqa: E402
from grader.bench import demo  # noqa: E402
from grader.commands import check, grade, listing  # noqa: E402
from grader.release import autograder, student  # noqa: E402

COMMANDS = (  # name, the module owning its add_arguments and run, its one-line help
    ("check", check, "check exercises (all when none is named)"),
    ("grade", grade, ("grade a class's submissions for credit (each in its own runner; a table, CSV, "
                      "Gradescope results)")),
    ("list", listing, "every exercise with its status"),
    ("bench", bench, "time speculative decoding against autoregressive decoding and HF assisted generation"),
    ("demo", demo, "the course's fastest exact loop on the shipped pair, with its speedup measured on the spot"),
    ("audit", audit, ("test any speculative sampler's output law (transformers' assisted generation, its prompt "
                      "lookup, your loops, your adapter), with the power of the draws stated")),
    ("release", student, ("write the course for learners into OUT (lessons/ written from solutions/), with or "
                          "without solutions/")),
    ("autograder", autograder, ("write a Gradescope autograder zip (setup.sh, run_autograder with a private "
                                "seed, the course)")),
)


def build_parser() -> argparse.ArgumentParser:
    """`grader`'s parser: each command's options are its module's, and ``func`` its ``run``."""
    parser = argparse.ArgumentParser(prog="grader", description="Check your speculative decoding "
                                     "exercises against exact laws, with statistics.")
    parser.set_defaults(started=STARTED)  # a command's own time counts from here
    commands = parser.add_subparsers(dest="command", required=True)
    for name, module, help in COMMANDS:
        command = commands.add_parser(name, help=help)
        module.add_arguments(command)
        command.set_defaults(func=module.run, usage_error=command.error)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run its command; its exit status (2 on a usage error, by argparse's exit)."""
    options = build_parser().parse_args(argv)
    try:
        missing = student.missing_reference(options.command)
        if missing:
            print(f"✘ {missing}", file=sys.stderr)
            return 1
        status = options.func(options)
        sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        return status
    except UsageError as exc:
        options.usage_error(str(exc))  # the command's usage, the message, exit 2
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


if __name__ == "__main__":
    entry()
