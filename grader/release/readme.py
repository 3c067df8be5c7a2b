"""Writes README.md's Lessons table from the course's declarations in ``grader/exercises.py``.

One row per lesson of ``LESSONS``: its title, its notebook (the stem of the one
``notebooks/<NN>_*.ipynb``), its exercises (``EXERCISES``, in their order, by ``Exercise.id``)
and the modules that define them (``Exercise.module``, each once). A lesson without exercises
says what it has the learner do instead (``WITHOUT_EXERCISES``) and names no module::

    | 6. Where the speed comes from | `06_performance` | — (measures your loop: …) | — |

The table stands in README.md between the lines ``BEGIN`` and ``END``, an empty line after
it; nothing outside them is touched, so adding an exercise or a lesson needs no hand edit of README.md.

``python -m grader.release.readme [README]`` rewrites the table in README (the course's
README.md by default); with ``--check`` it writes nothing, and exits 1 saying what differs
while the table is stale. tests/test_contributing.py fails while the committed table differs.
"""
import argparse
import difflib
import sys
from pathlib import Path

from grader import exercises, sources

COMMAND = "python -m grader.release.readme"
BEGIN = f"<!-- BEGIN LESSONS: written by `{COMMAND}` from grader/exercises.py; do not edit by hand -->"
END = "<!-- END LESSONS -->"
HEADER = "| lesson | notebook | exercises (`grader check …`) | module |\n| --- | --- | --- | --- |\n"
NONE = "—"  # the exercises and module of a lesson that has none


class TableError(ValueError):
    """The declarations cannot make the table, or README.md has no place for it."""


def notebook(lesson: int, root: Path) -> str:
    """The stem of lesson ``lesson``'s one notebook in ``root/notebooks`` (``0`` -> ``"00_sampling"``)."""
    found = sorted(path.stem for path in (root / "notebooks").glob(f"{lesson:02d}_*.ipynb"))
    if len(found) != 1:
        raise TableError(f"lesson {lesson} needs one notebook notebooks/{lesson:02d}_*.ipynb, found "
                         f"{', '.join(found) or 'none'}")
    return found[0]


def row(lesson: int, title: str, root: Path) -> str:
    """One line of the table, ``| <lesson>. <title> | `<notebook>` | <exercises> | <modules> |``."""
    declared = [exercise for exercise in exercises.EXERCISES if exercise.lesson == lesson]
    if declared:
        names = ", ".join(f"`{exercise.id}`" for exercise in declared)
        modules = ", ".join(f"`{module}`" for module in dict.fromkeys(exercise.module for exercise in declared))
    else:
        instead = exercises.WITHOUT_EXERCISES.get(lesson)
        names, modules = f"{NONE} ({instead})" if instead else NONE, NONE
    return f"| {lesson}. {title} | `{notebook(lesson, root)}` | {names} | {modules} |\n"


def table(root: Path = sources.ROOT) -> str:
    """The Lessons table, its header and one row per lesson of ``LESSONS`` in order, each line ending in a newline."""
    untitled = sorted({exercise.lesson for exercise in exercises.EXERCISES} - set(exercises.LESSONS))
    if untitled:
        raise TableError(f"lesson {', '.join(map(str, untitled))} has exercises but no title in "
                         "grader/exercises.py's LESSONS")
    return HEADER + "".join(row(lesson, title, root) for lesson, title in sorted(exercises.LESSONS.items()))


def rewritten(readme: str, table: str) -> str:
    """``readme`` (a README's text) with ``table`` in place of the lines between its markers."""
    lines = readme.splitlines(keepends=True)
    begins, ends = ([index for index, line in enumerate(lines) if line.rstrip("\n") == marker] for marker in (BEGIN, END))
    if len(begins) != 1 or len(ends) != 1 or begins[0] > ends[0]:
        raise TableError(f"the README must hold the Lessons table between one line {BEGIN!r} and one line "
                         f"{END!r} after it; found {len(begins)} and {len(ends)}")
    # an empty line ends the table: a Markdown table may read a line right below it as one more row
    return "".join(lines[: begins[0] + 1]) + table + "\n" + "".join(lines[ends[0]:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("readme", nargs="?", type=Path, default=sources.ROOT / "README.md",
                        help="the README whose table to write (default: the course's README.md)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1, saying what differs, if the table is not what would be written")
    args = parser.parse_args(argv)
    try:
        current = args.readme.read_text()
        written = rewritten(current, table())
    except (OSError, TableError) as exc:
        parser.error(str(exc))
    if not args.check:
        if written != current:
            args.readme.write_text(written)
        return 0
    if written == current:
        return 0
    command = COMMAND if args.readme == sources.ROOT / "README.md" else f"{COMMAND} {args.readme}"
    diff = difflib.unified_diff(current.splitlines(keepends=True), written.splitlines(keepends=True),
                                f"{args.readme} (as it is)", f"{args.readme} (as grader/exercises.py declares)")
    print(f"{args.readme}'s Lessons table is stale:\n{''.join(diff)}Run `{command}` to rewrite it.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
