"""``grader release OUT [--no-solutions]``: the course as its learners get it, written into OUT.

A release is the course's files (``course.py``): ``lessons/`` written from ``solutions/``, the
notebooks as committed (their outputs the stubs'). ``--no-solutions`` leaves out whatever holds
the reference's answers or runs only on it (``REFERENCE``), and ships in their place the public
reference (``public.py``: the checks' inputs, every exercise's own functions a stub) and a
README written for learners (``student_readme.md``). Its ``grader check`` and the notebooks'
``check()`` give real verdicts for the exercises whose checks need no answer
(``public.PUBLIC``) and say in one line why the others are the autograder's
(``autograder.py``), which holds the whole reference and the instructor's private seed.
What it does not hide: ``grader/`` ships whole, and its judges and exact laws compute what
each exercise must return (for ``max_fn``, the formula itself).
"""
import json
import re
import shutil
import string
from pathlib import Path

from grader import exercises, implementation, sources
from grader.arguments import UsageError
from grader.release import course, public

REFERENCE = (
    "solutions/",  # the reference itself
    "tests/",  # valid variants are answers written another way, mutants near-answers; the suite runs on the reference
    "scripts/",  # the maintainers' studies and training, which import the reference
    ".ci/",  # runs the suite
)
GUIDE = "docs/release.md"
README = Path(__file__).with_name("student_readme.md")  # the release's README.md, once filled
NOTEBOOK_NEEDS_REFERENCE = "course(needs_reference=True)"  # a notebook's first line that stops here


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder, outside the course's")
    parser.add_argument("--no-solutions", action="store_true",
                        help=f"leave out the reference and what runs on it ({', '.join(REFERENCE)}): "
                             f"learners get the public checks of {len(public.PUBLIC)} exercises, the "
                             f"others' verdicts from your autograder ({GUIDE})")


def run(args) -> int:
    """`grader release OUT`; a release that cannot be written is a UsageError."""
    try:
        notes = write(args.out, with_solutions=not args.no_solutions)
    except course.ReleaseError as exc:
        raise UsageError(str(exc)) from None
    for note in notes:
        print(f"note: {note}")
    left_out = (f", without {', '.join(REFERENCE)}; solutions/ is the public reference, README.md is for "
                "learners" if args.no_solutions else ", solutions/ included")
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
        found.update({name: text.encode() for name, text in public.sources().items()})
        found["README.md"] = readme(found).encode()
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


def readme(found: dict[str, Path | bytes]) -> str:
    """The README of a release without solutions, for learners: the template filled with the
    public checks, why each other exercise is the autograder's, which notebooks stop at their
    first cell (their first code, from the release's files ``found``) and the course README's
    table of lessons."""
    lessons = re.search(r"^## Lessons\n(.*?)(?=^## |\Z)", (sources.ROOT / "README.md").read_text(), re.M | re.S)
    if lessons is None:
        raise course.ReleaseError("README.md has no '## Lessons' section, which the learners' README copies")
    reading = [Path(name).stem.split("_")[0] for name, source in found.items() if name.endswith(".ipynb")
               and NOTEBOOK_NEEDS_REFERENCE in (source if isinstance(source, bytes) else source.read_bytes()).decode()]
    return string.Template(README.read_text()).substitute(
        count=len(public.PUBLIC), public=", ".join(f"`{e}`" for e in public.PUBLIC),
        private="\n".join(f"- {', '.join(f'`{e}`' for e in ids)}: {why}." for why, ids in _by_reason().items()),
        reading=", ".join(reading[:-1]) + f" and {reading[-1]}" if len(reading) > 1 else "".join(reading) or "none",
        lessons=lessons.group(1).strip())


def _by_reason() -> dict[str, list[str]]:
    """{why a check needs the reference: the exercises it holds for}, in the course's order."""
    grouped: dict[str, list[str]] = {}
    for exercise_id, why in public.AUTOGRADER_ONLY.items():
        grouped.setdefault(why, []).append(exercise_id)
    return grouped


def missing_reference(command: str) -> str:
    """Why ``grader COMMAND`` cannot run in this copy of the course ("" where it can): with the
    public reference only, ``list``, ``check`` (its public checks) and ``demo`` (the learner's
    own loop) run; every other command needs the reference."""
    runs_on_public = command in ("list", "check", "demo") and implementation.has_checks()
    return "" if command == "list" or implementation.has_reference() or runs_on_public else needs_reference(f"`grader {command}`")


def needs_reference(what: str) -> str:
    """One paragraph: ``what`` (a command, a notebook's ``check()``) needs the absent reference."""
    return (f"{what} needs the course's reference, solutions/, which this copy of the course "
            "leaves out (a release made without solutions). Hand your lessons/ in to your course's "
            f"autograder for verdicts; `grader list` shows your exercises ({GUIDE}).")


def public_split(exercise_ids: list[str]) -> tuple[list[str], list[str]]:
    """``(the ids whose check runs here, one line for each other)``: all of them run where the
    course has its reference; with the public one, ``public.PUBLIC`` alone."""
    return ([e for e in exercise_ids if checked_here(e)],
            [public.why_not_public(e) for e in exercise_ids if not checked_here(e)])


def checked_here(exercise_id: str) -> bool:
    """Whether ``grader check`` runs the exercise's check in this copy of the course: every one
    where it has its reference, the public ones where it has the public reference only."""
    return implementation.has_reference() or exercise_id in public.PUBLIC


def public_summary() -> str:
    """The line ``grader list`` ends with in a release without the reference."""
    if not implementation.has_checks():
        return needs_reference("`grader check`")
    return (f"This release checks {len(public.PUBLIC)} of {len(exercises.EXERCISES)} exercises itself "
            f"(public checks: {', '.join(public.PUBLIC)}); your course's autograder checks the others.")


def with_autograder_only(checked: str, autograder_only: list[str]) -> str:
    """``grader check --json``'s object (``checked``), with ``"autograder_only"``: the line of
    each exercise asked for whose check needs the reference (none where the course has it)."""
    return json.dumps({**json.loads(checked), "autograder_only": autograder_only}) if autograder_only else checked
