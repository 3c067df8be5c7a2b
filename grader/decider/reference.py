"""The reference a grading runner gets: the source of every ``solutions`` module, with the
names the graded exercises withhold (``Exercise.withheld``) reduced to stubs.

A stub keeps its signature, decorators and docstring; its body raises ``ReferenceWithheld``
(a class keeps its attributes and its plumbing, such as ``__repr__``; its other functions
become such stubs, except that ``__init__`` does nothing, so that a default argument built
at import still imports). The runner imports ``solutions`` from these sources alone
(grader/runner/reference.py), and the sandbox covers the folder, so the learner's code finds
the graded exercises' answers neither in memory nor on disk. Everything else of the
reference stays usable.
"""
import ast
import functools

from grader import exercises, sources

STUB_IMPORT = "from grader.runner.reference import ReferenceWithheld as _ReferenceWithheld"


@functools.cache
def reference_sources(exercise_ids: tuple[str, ...]) -> dict[str, str]:
    """``{module name: source}`` for the package ``solutions`` and each of its modules, the
    withheld names of ``exercise_ids`` stubbed."""
    owners: dict[tuple[str, str], list[str]] = {}  # (module, name) -> the exercises withholding it
    for exercise_id in exercise_ids:
        exercise = exercises.get(exercise_id)
        for name in exercise.withheld:
            owners.setdefault((exercise.module, name), []).append(exercise_id)
    folder = sources.ROOT / "solutions"
    found = {"solutions": (folder / "__init__.py").read_text()}
    for path in sorted(folder.glob("*.py")):
        if path.stem != "__init__":
            stubbed = {name: ids for (module, name), ids in owners.items() if module == path.stem}
            found[f"solutions.{path.stem}"] = stubbed_source(path.read_text(), path.stem, stubbed)
    return found


def stubbed_source(source: str, module: str, stubbed: dict[str, list[str]]) -> str:
    """``source`` with each top-level definition named in ``stubbed`` ({name: the exercise
    ids withholding it}) reduced to a stub; unchanged when there is none."""
    if not stubbed:
        return source
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in stubbed:
            _stub(node, f"solutions.{module}.{node.name}", stubbed[node.name], module)
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    tree.body.insert(len(future) + _docstring_count(tree.body), ast.parse(STUB_IMPORT).body[0])
    return ast.unparse(tree)


def _stub(node, qualified: str, owners: list[str], module: str) -> None:
    if isinstance(node, ast.ClassDef):
        for child in node.body:
            function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if function and not (child.name.startswith("__") and child.name not in ("__init__", "__call__")):
                _stub(child, f"{qualified}.{child.name}", owners, module)
        return
    graded = " and ".join(owners)
    message = (f"`{qualified}` is withheld while {graded} is graded: it is part of that exercise. "
               f"Write it in lessons/{module}.py; the reference's other steps stay available.")
    body = (ast.parse("pass").body if node.name == "__init__"
            else ast.parse(f"raise _ReferenceWithheld({message!r})").body)
    node.body = node.body[:_docstring_count(node.body)] + body


def _docstring_count(body: list) -> int:
    """1 when ``body`` starts with a docstring, else 0."""
    first = body[0] if body else None
    return int(isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))

