"""Writes the learner's package, ``lessons/``, from the reference, ``solutions/``.

``solutions/`` is the one source of every lesson module. Where a lesson differs from the
reference (an exercise's body, the imports that take the learner's own earlier steps, notes
for the learner), the reference holds both versions between markers, each alone on its
line at the indentation of the code around it::

    def max_fn(x):
        \"\"\"The contract: the same text in both packages.\"\"\"
        # BEGIN SOLUTION
        positive = x.clamp(min=0)
        ...
        # LESSON
        # raise NotImplementedError
        # END SOLUTION

The lesson leaves out the lines from ``BEGIN SOLUTION`` to ``LESSON`` and keeps those from
``LESSON`` to ``END SOLUTION`` without their ``# `` (a bare ``#`` is an empty line); a block
without ``LESSON`` is the reference's alone. Everything outside the markers (docstrings,
provided code) is the same in both. ``lessons/__init__.py`` is written from
the reference's exports (``grader.exercises.EXPORTS``: each module's ``__all__``).

``python -m grader.release.lessons [FOLDER]`` writes the lessons into FOLDER (the course's
``lessons/`` by default); tests/test_release.py fails while the shipped ``lessons/`` differs.
"""
import argparse
import io
import string
import tokenize
from pathlib import Path

from grader import exercises, sources

BEGIN, LESSON, END = "# BEGIN SOLUTION", "# LESSON", "# END SOLUTION"
FOLLOWS = {BEGIN: (None,), LESSON: (BEGIN,), END: (BEGIN, LESSON)}  # marker -> the parts it may follow
SOLUTIONS = sources.ROOT / "solutions"

PACKAGE = string.Template('''"""Your implementation of the course's exercises (same names as ``solutions``).

Each name is imported from its lesson's module on first use (``from lessons import
max_fn``), so a lesson you are still writing never stops the others from importing.
"""
import importlib

_MODULES = {  # name -> its module, written from the reference's modules' __all__
$entries}
__all__ = list(_MODULES)


def __getattr__(name):
    if name not in _MODULES:
        raise AttributeError(f"module 'lessons' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lessons.{_MODULES[name]}"), name)
''')


class MarkerError(ValueError):
    """The markers of a reference module are out of order, or a lesson line is not commented."""


def markers(source: str) -> dict[int, str]:
    """{line index: marker} of the comments that are a marker alone on their line; tokenize
    tells comments from strings, so a docstring that quotes a marker is never one."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string in FOLLOWS and token.line.strip() == token.string:
            found[token.start[0] - 1] = token.string
    return found


def lesson_source(solution: str, name: str = "<source>") -> str:
    """The lesson's text of one module, from the reference's text ``solution``."""
    found, kept = markers(solution), []
    part, indent = None, ""  # the block's part being read (None: outside any block)
    for index, line in enumerate(solution.splitlines(keepends=True)):
        marker = found.get(index)
        where = f"{name}, line {index + 1}"
        if marker is not None:
            if part not in FOLLOWS[marker]:
                place = f"inside its {part!r} part" if part else "outside a block"
                raise MarkerError(f"{where}: {marker!r} cannot stand {place}")
            if marker == BEGIN:
                indent = line[: len(line) - len(line.lstrip())]
            elif not line.startswith(indent + "#"):
                raise MarkerError(f"{where}: {marker!r} is not indented as its {BEGIN!r}")
            part = None if marker == END else marker
        elif part is None:
            kept.append(line)
        elif part == LESSON:
            kept.append(uncommented(line, indent, where))
    if part is not None:
        raise MarkerError(f"{name}: {part!r} has no {END!r}")
    return "".join(kept)


def uncommented(line: str, indent: str, where: str) -> str:
    """A lesson line as the lesson has it: ``indent# text`` -> ``indent text``, ``indent#`` -> empty."""
    text = line.rstrip("\n")
    if text == indent + "#":
        return "\n"
    if not text.startswith(indent + "# "):
        raise MarkerError(f"{where}: a lesson line must start with {indent + '# '!r}")
    return indent + text[len(indent) + 2:] + "\n"


def package_source() -> str:
    """``lessons/__init__.py``: every exported name mapped to its module."""
    entries = "".join(f'    "{name}": "{module}",\n'
                      for module, names in exercises.EXPORTS.items() for name in names)
    return PACKAGE.substitute(entries=entries)


def lessons() -> dict[str, str]:
    """{file name: text} of every file of ``lessons/``, written from ``solutions/``."""
    written = {"__init__.py": package_source()}
    for path in sorted(SOLUTIONS.glob("*.py")):
        if path.name != "__init__.py":
            written[path.name] = lesson_source(path.read_text(), f"solutions/{path.name}")
    return written


def write(folder: Path) -> None:
    """Write every file of ``lessons/`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in lessons().items():
        (folder / name).write_text(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m grader.release.lessons", description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=sources.ROOT / "lessons",
                        help="where to write the lessons (default: the course's lessons/)")
    write(parser.parse_args(argv).folder)


if __name__ == "__main__":
    main()
