"""``grader release OUT [--no-solutions]``: the course as its learners get it, written into OUT.

A release is the course's files (``course.py``): ``lessons/`` written from ``solutions/``, the
notebooks as committed (their outputs the stubs'). ``--no-solutions`` leaves out whatever holds
the reference's answers or runs only on it (``REFERENCE``). What that costs, plainly: every
check gives the learner's function processors, models and helpers taken from the reference, so
such a release cannot check anything; its ``grader check`` says so (``missing_reference``), and
its learners hand ``lessons/`` in to the instructor's autograder (``autograder.py``).
What it does not hide: ``grader/`` ships whole, and its judges and exact laws compute what
each exercise must return (for ``max_fn``, the formula itself).
"""
import shutil
from pathlib import Path

from grader import sources
from grader.release import course

REFERENCE = (
    "solutions/",  # the reference itself
    "tests/",  # valid variants are answers written another way, mutants near-answers; the suite runs on the reference
    "scripts/",  # the maintainers' studies and training, which import the reference
    ".ci/",  # runs the suite
)
GUIDE = "docs/release.md"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder, outside the course's")
    parser.add_argument("--no-solutions", action="store_true",
                        help=f"leave out the reference and what runs on it ({', '.join(REFERENCE)}): "
                             "learners then get verdicts from your autograder alone, since every check "
                             f"needs the reference ({GUIDE})")


def run(parser, args) -> int:
    try:
        notes = write(args.out, with_solutions=not args.no_solutions)
    except course.ReleaseError as exc:
        parser.error(str(exc))
    for note in notes:
        print(f"note: {note}")
    left_out = f", without {', '.join(REFERENCE)}" if args.no_solutions else ", solutions/ included"
    print(f"wrote the release into {args.out}{left_out}: lessons/ written from solutions/, the "
          f"notebooks as committed. Learners install it as the README says.")
    return 0


def write(out: Path, with_solutions: bool = True) -> list[str]:
    """Write a release into ``out`` (absent or empty, outside the course's folder); returns
    notes on what it holds otherwise than the working tree does."""
    out = course.outside(out, "the release")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise course.ReleaseError(f"{out} is not an empty folder; a release goes into a new one")
    found = course.contents()
    if not with_solutions:
        found = {name: source for name, source in found.items() if not name.startswith(REFERENCE)}
    for name, source in found.items():
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copy(source, target)  # its mode too: a script stays executable
        else:
            target.write_bytes(source)
    notes = [f"{name}: the release has its committed copy (outputs stored on the stubs), not your "
             "working copy" for name, source in found.items()
             if name.endswith(".ipynb") and isinstance(source, bytes) and source != (sources.ROOT / name).read_bytes()]
    return notes + [f"{name} is not tracked by git, so the release leaves it out" for name in course.untracked()]


def has_reference() -> bool:
    """Whether this copy of the course holds its reference, ``solutions/``."""
    return (sources.ROOT / "solutions" / "__init__.py").is_file()


def missing_reference(command: str) -> str:
    """Why ``grader COMMAND`` cannot run in this copy of the course ("" where it can): every
    command but ``list`` needs the reference, which a release without solutions leaves out."""
    return "" if command == "list" or has_reference() else needs_reference(f"`grader {command}`")


def needs_reference(what: str) -> str:
    """One paragraph: ``what`` (a command, a notebook's ``check()``) needs the absent reference."""
    return (f"{what} needs the course's reference, solutions/, which this copy of the course "
            "leaves out (a release made without solutions): every check gives your function processors, "
            "models and helpers taken from it. Hand your lessons/ in to your course's autograder for "
            f"verdicts; `grader list` shows your exercises ({GUIDE}).")
