"""What every `grader` command shares on its command line: value parsers for argparse's
``type=`` and the usage error a command raises once its values are parsed.

A value parser turns one command-line string into the value a command uses, or raises
``argparse.ArgumentTypeError`` with what was wrong and what was expected; argparse puts
the option's name before it, the command's usage above it, and exits with status 2.
"""
import argparse

from grader import exercises, implementation


class UsageError(Exception):
    """Options that parsed one by one but cannot run together, or that name something absent:
    `grader` prints the message under the command's usage and exits with status 2."""


def positive_int(text: str) -> int:
    """A whole number of at least 1, such as ``--repeats 5``."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """A positive number of seconds, such as ``--timeout 30`` or ``2.5``."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):  # `not >` also refuses nan
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds; got {text!r}")
    return value


def exercise_id(text: str) -> str:
    """One of ``grader.exercises``' ids; a near miss is told the id it resembles."""
    if text not in exercises.BY_ID:
        raise argparse.ArgumentTypeError(exercises.unknown_message(text))
    return text


def implementation_spec(text: str) -> str:
    """``--impl``: lessons, solutions, a module name or a path to a .py file, which must be
    found (nothing of it runs to find it)."""
    try:
        implementation.locate(text)
    except implementation.ImplementationNotFound as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text
