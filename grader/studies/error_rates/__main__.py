"""Run one error-rate study and write its statistics page:
``python -m grader.studies.error_rates NAME [options]``.

``NAME`` is one of ``STUDIES``; ``python -m grader.studies.error_rates NAME --help`` gives its
options. Each writes docs/<its page>.md from the template ``pages/NAME.md`` (the
verifiers' study prints its table, which docs/statistics.md shows).
"""
import argparse
import importlib
import sys

from grader.studies.error_rates import report

STUDIES = ("verifiers", "generate", "ngram", "statement", "trees", "batched")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m grader.studies.error_rates", description=__doc__.splitlines()[0])
    studies = parser.add_subparsers(dest="study", required=True, metavar="NAME")
    for name in STUDIES:
        study = importlib.import_module(f"grader.studies.error_rates.{name}")
        study.options(studies.add_parser(name, description=study.__doc__, help=study.__doc__.splitlines()[0],
                                         formatter_class=argparse.RawDescriptionHelpFormatter))
    args = parser.parse_args(argv)
    study = importlib.import_module(f"grader.studies.error_rates.{args.study}")
    result = {"command": " ".join(["python -m grader.studies.error_rates", *argv]), **study.run(args)}
    report.write(args.study, study.PAGE, result)


if __name__ == "__main__":
    main()
