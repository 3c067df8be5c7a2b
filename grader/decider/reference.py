"""The reference a grading runner gets: the source of every ``solutions`` module, with the
names a graded exercise withholds reduced to stubs.

While an exercise is graded its runner withholds (``withheld``) its own names
(``Exercise.withheld``: what it asks for and the helpers the learner writes for it) and every
name that could stand in for them (``stand_ins``): the names of every other exercise of its
module, of its lesson, or of a later lesson (lesson 8's batched verifier verifies one row as
lesson 2's does, lesson 10's ``divergence`` gives lesson 10's α, lesson 8's loop is lesson
3's, lesson 1's numpy verifier is lesson 2's), but for those the exercise builds on
(``builds_on``): what its own reference calls, and what its check's runner side imports
from ``solutions``, each followed through the reference's calls. So what a runner withholds
depends on its exercise alone, never on what else is graded, and a check never meets a
stub of its own making (tests/test_withheld.py holds both).

A stub keeps its signature, decorators and docstring; its body raises ``ReferenceWithheld``
(a class keeps its attributes and its plumbing, such as ``__repr__``; its other functions
become such stubs, except that ``__init__`` does nothing, so that a default argument built
at import still imports). Each module that has stubs lists them in ``__withheld__``, so the
runner never puts one in place of a learner's step (grader/implementation.py). The runner
imports ``solutions`` from these sources alone (grader/runner/reference.py), and the sandbox
covers the folder, so the learner's code finds the withheld answers neither in memory nor on
disk. Everything else of the reference stays usable.
"""
import ast
import functools

from grader import exercises, sources
from grader.decider import sandbox
from grader.decider.preload import course_file as _course_file
from grader.decider.preload import parse as _parse

STUB_IMPORT = "from grader.runner.reference import ReferenceWithheld as _ReferenceWithheld"
WITHHELD_LIST = "__withheld__"  # a stubbed module's tuple of its stubbed names
Name = tuple[str, str]  # (module of solutions/, top-level name)


@functools.cache
def reference_sources(exercise_ids: tuple[str, ...]) -> dict[str, str]:
    """``{module name: source}`` for the package ``solutions`` and each of its modules, the
    names ``withheld`` by each of ``exercise_ids`` stubbed."""
    owners: dict[Name, list[str]] = {}  # (module, name) -> the exercises withholding it
    for exercise_id in exercise_ids:
        for name in withheld(exercise_id):
            owners.setdefault(name, []).append(exercise_id)
    folder = sources.ROOT / "solutions"
    found = {"solutions": (folder / "__init__.py").read_text()}
    for path in sorted(folder.glob("*.py")):
        if path.stem != "__init__":
            stubbed = {name: ids for (module, name), ids in owners.items() if module == path.stem}
            found[f"solutions.{path.stem}"] = stubbed_source(path.read_text(), path.stem, stubbed)
    return found


@functools.cache
def withheld(exercise_id: str) -> frozenset[Name]:
    """What a runner grading ``exercise_id`` withholds: its own names and ``stand_ins``."""
    return own(exercise_id) | stand_ins(exercise_id)


def own(exercise_id: str) -> frozenset[Name]:
    """The exercise's own names: the functions it asks for and the helpers its learner writes."""
    exercise = exercises.get(exercise_id)
    return frozenset((exercise.module, name) for name in exercise.withheld)


@functools.cache
def stand_ins(exercise_id: str) -> frozenset[Name]:
    """The other exercises' names that could do this one's job: those of its module, its
    lesson or a later lesson, less what it builds on (``builds_on``) and its own names."""
    graded = exercises.get(exercise_id)
    candidates = {(e.module, name) for e in exercises.EXERCISES if e.id != exercise_id
                  and (e.lesson >= graded.lesson or e.module == graded.module) for name in e.withheld}
    return frozenset(candidates - own(exercise_id) - builds_on(exercise_id) - check_needs(exercise_id))


@functools.cache
def builds_on(exercise_id: str) -> frozenset[Name]:
    """Every reference name the exercise's own reference reaches, followed call by call
    through ``solutions`` (its own names included)."""
    return _reference().reached(own(exercise_id))


@functools.cache
def check_needs(exercise_id: str) -> frozenset[Name]:
    """Every reference name the check's runner side reaches: what the check's module, and
    the course modules it imports, import from ``solutions``, followed through the reference."""
    imported: set[Name] = set()
    for module in _course_modules(exercises.get(exercise_id).check):
        imported |= _reference().imported_by(_parse(_course_file(module)))
    return _reference().reached(imported)


@functools.cache
def stood_in(exercise_id: str) -> dict[str, tuple[str, ...]]:
    """{name: the exercises owning it} of the other exercises' steps the exercise's reference
    calls when it runs (its functions' bodies, and the provided helpers they call), sorted:
    the steps a learner's code for it calls too, in whose place ``grader grade`` runs the
    reference's (grader/implementation.py); its verdict names them. A step reached only
    through another exercise's step is not named: the reference's calls its own."""
    mine = own(exercise_id)
    others = {name for e in exercises.EXERCISES if e.id != exercise_id for name in own(e.id)} - mine
    reached = _reference().reached(mine, bodies=True, stop=others) & others
    return {name: tuple(e.id for e in exercises.EXERCISES if (module, name) in own(e.id))
            for module, name in sorted(reached, key=lambda n: n[1])}


def stood_in_noted(verdicts: list) -> list:
    """``verdicts`` (of one submission, graded on their own) with ``stood_in``: the reference's
    steps that stood in for the learner's in each (``stood_in``), and ``stood_in_failed``: those
    whose own exercise the learner's code did not pass in this run, which the learner's code
    for this one calls too (information: the exercise was scored without them)."""
    status = {verdict.exercise: verdict.passed for verdict in verdicts}
    for verdict in verdicts:
        steps = stood_in(verdict.exercise)
        verdict.stood_in = list(steps)
        verdict.stood_in_failed = [name for name, ids in steps.items()
                                   if any(status.get(e) is False for e in ids)]
    return verdicts


@functools.cache
def _reference() -> "_Reference":
    return _Reference()


class _Reference:
    """The reference's modules as syntax trees: their top-level definitions, and the names
    each module imports from ``solutions``."""

    def __init__(self):
        folder = sources.ROOT / "solutions"
        self.definitions: dict[Name, ast.AST] = {}
        self.imports: dict[str, dict[str, Name | str]] = {}  # module -> {local: (module, name) or module}
        for path in sorted(folder.glob("*.py")):
            if path.stem == "__init__":
                continue
            tree = _parse(path)
            self.imports[path.stem] = _solutions_imports(tree)
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.definitions[(path.stem, node.name)] = node

    def imported_by(self, tree: ast.Module) -> set[Name]:
        """The reference names a course module imports, a whole module standing for all its names."""
        names: set[Name] = set()
        for target in _solutions_imports(tree).values():
            names |= self._module_names(target) if isinstance(target, str) else {target}
        return names

    def reached(self, start, bodies: bool = False, stop=frozenset()) -> frozenset[Name]:
        """``start`` and every reference name its definitions load, transitively; ``bodies``:
        only what runs when a function is called (not its defaults, decorators or annotations);
        the names in ``stop`` are reached but not followed."""
        seen, pending = set(), list(start)
        while pending:
            name = pending.pop()
            if name in seen or name not in self.definitions:
                continue
            seen.add(name)
            if name in stop:
                continue
            module = name[0]
            for local, attribute in _loaded(self.definitions[name], bodies):
                target = self._resolve(module, local)
                if isinstance(target, str):  # a module: its attribute, or all of it
                    pending.extend([(target, attribute)] if attribute else self._module_names(target))
                elif target is not None:
                    pending.append(target)
        return frozenset(seen)

    def _resolve(self, module: str, local: str) -> Name | str | None:
        if (module, local) in self.definitions:
            return module, local
        return self.imports.get(module, {}).get(local)

    def _module_names(self, module: str) -> set[Name]:
        return {name for name in self.definitions if name[0] == module}


def _solutions_imports(tree: ast.Module) -> dict[str, Name | str]:
    """{local name: (module, name) imported, or a module's name} for a module's imports from
    ``solutions`` anywhere in it (a check imports some inside its functions)."""
    found: dict[str, Name | str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "solutions":
            parts = node.module.split(".")
            for alias in node.names:
                local = alias.asname or alias.name
                found[local] = alias.name if len(parts) == 1 else (parts[1], alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "solutions" and len(parts) == 2:
                    found[alias.asname or "solutions"] = parts[1] if alias.asname else "solutions"
    return found


def _loaded(node: ast.AST, bodies: bool) -> list[tuple[str, str | None]]:
    """(name, attribute read from it or None) of each global-looking name ``node`` loads."""
    parts = node.body if bodies and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else [node]
    if bodies and isinstance(node, ast.ClassDef):
        parts = node.body
    loaded = []
    for part in parts:
        for child in ast.walk(part):
            if isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name):
                loaded.append((child.value.id, child.attr))
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                loaded.append((child.id, None))
    return loaded


def _course_modules(start: str) -> list[str]:
    """``start`` and every course module it imports, transitively, that a runner imports too."""
    seen, pending = [], [start]
    while pending:
        module = pending.pop()
        if module in seen or module.startswith(_DECIDER_ONLY) or _course_file(module) is None:
            continue
        seen.append(module)
        for node in ast.walk(_parse(_course_file(module))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grader"):
                pending.append(node.module)
                pending.extend(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                pending.extend(a.name for a in node.names if a.name.startswith("grader"))
    return seen


_DECIDER_ONLY = tuple(p.removesuffix(".py").replace("/", ".") for p in sandbox.DECIDER_ONLY)  # never a runner's


def stubbed_source(source: str, module: str, stubbed: dict[str, list[str]]) -> str:
    """``source`` with each top-level definition named in ``stubbed`` ({name: the exercise
    ids withholding it}) reduced to a stub, and the stubbed names listed in ``__withheld__``;
    unchanged when there is none."""
    if not stubbed:
        return source
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in stubbed:
            _stub(node, f"solutions.{module}.{node.name}", stubbed[node.name], module, node.name)
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    header = ast.parse(f"{STUB_IMPORT}\n{WITHHELD_LIST} = {tuple(sorted(stubbed))!r}").body
    tree.body[len(future) + _docstring_count(tree.body):0] = header
    return ast.unparse(tree)


def _stub(node, qualified: str, withholding: list[str], module: str, top: str) -> None:
    if isinstance(node, ast.ClassDef):
        for child in node.body:
            function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if function and not (child.name.startswith("__") and child.name not in ("__init__", "__call__")):
                _stub(child, f"{qualified}.{child.name}", withholding, module, top)
        return
    owning = [e for e in withholding if (module, top) in own(e)]  # a runner may grade several
    if owning:
        graded, why = " and ".join(owning), f"it is part of that exercise. Write it in lessons/{module}.py"
    else:
        lesson = next(e.lesson for e in exercises.EXERCISES if (module, top) in own(e.id))
        graded = " and ".join(withholding)
        why = (f"it is a step of lesson {lesson} that could do that exercise's job, and an exercise "
               "is graded on the steps it builds on alone (its own, and those its lesson calls)")
    message = f"`{qualified}` is withheld while {graded} is graded: {why}; the reference's other steps stay available."
    body = (ast.parse("pass").body if node.name == "__init__"
            else ast.parse(f"raise _ReferenceWithheld({message!r})").body)
    node.body = node.body[:_docstring_count(node.body)] + body


def _docstring_count(body: list) -> int:
    """1 when ``body`` starts with a docstring, else 0."""
    first = body[0] if body else None
    return int(isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))
