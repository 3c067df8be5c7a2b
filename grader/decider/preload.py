"""What the decider imports before learner code could run, and the guard that holds it to that.

A runner runs the learner's code. Unsandboxed, that code could write files the decider
would import next (a module planted on its import path), so the decider imports everything
its decisions need first and nothing afterwards. Which modules a decision needs is derived
from what the grader declares, never from a list kept by hand (``needed``):

- the decider's half of every check (``grader.checks.harness``, ``grader.decider.replay``),
  each chosen exercise's check module (``Exercise.check``) and its own judge
  (``grader.judges.<check>``: ``check.judge(name)`` without a module names it);
- every judge another judge name in their source names (``check.judge("loop_properties.law_tests")``,
  a ``judge="kv_cache.discipline"`` default): a string ``"<judge module>.<function>"``;
- every module their ``import`` statements name, at the top or inside a function, followed
  through the course's own modules (``grader``, ``solutions``); outside the course, the
  statement itself is executed (``import scipy.stats``, ``from torch import nn``), and a
  library's own imports follow from importing it.

``ImportGuard`` then stands in for every finder while decisions are made: a course module
not preloaded is refused (``LateImport``, an ImportError) and recorded, so that the decider
turns the verdict into an error naming it (grader/decider/run.py), never a silent import; a
library's own lazy import is allowed only from files that predate the preload.
tests/test_preload.py plants modules under the guard and grades exercises under it.
"""
import ast
import functools
import importlib
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import exercises, sources

DECIDING = ("grader.checks.harness", "grader.decider.replay")  # every decision's own code
COURSE = ("grader", "solutions")


@dataclass(frozen=True)
class Needed:
    """What a decision of some exercises imports: ``course``, the course's modules (dotted
    names), and ``statements``, each import statement of theirs that names a module outside
    the course, as (module, names imported from it; empty for ``import module``)."""

    course: tuple[str, ...]
    statements: tuple[tuple[str, tuple[str, ...]], ...]


@functools.cache
def needed(exercise_ids: tuple[str, ...]) -> Needed:
    """The modules the decisions of ``exercise_ids`` import (see the module's docstring)."""
    pending = [*DECIDING]
    for exercise_id in exercise_ids:
        check = exercises.get(exercise_id).check
        pending += [check, f"grader.judges.{check.rsplit('.', 1)[-1]}"]
    course, statements = [], {}
    while pending:
        module = pending.pop(0)
        if module in course or course_file(module) is None:
            continue
        course.append(module)
        found_course, found_outside = _imports(module)
        pending += found_course
        statements.update(dict.fromkeys(found_outside))
    return Needed(tuple(course), tuple(statements))


def _imports(module: str, tree: ast.AST | None = None) -> tuple[list[str], list[tuple[str, tuple[str, ...]]]]:
    """The course modules ``module``'s source (or its part ``tree``) imports (its packages,
    each submodule named in a ``from`` import, the judges named by string) and its statements
    importing from outside. The imports of a module-level ``__getattr__`` (PEP 562: ``grader``'s
    ``check`` and ``load_pair``) count only where a ``from`` import reads a name it provides."""
    path = course_file(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    course, outside = _parents(module), []
    for node in _walk(parse(path) if tree is None else tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if in_course(alias.name):
                    course += [*_parents(alias.name), alias.name]
                else:
                    outside.append((alias.name, ()))
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            names = tuple(alias.name for alias in node.names)
            if in_course(base):
                course += [*_parents(base), base, *(f"{base}.{name}" for name in names)]
                found_course, found_outside = _lazy(base, names)
                course += found_course
                outside += found_outside
            elif base != "__future__":
                outside.append((base, names))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            course += _judge_named(node.value)
    return course, outside


def _walk(tree: ast.AST):
    """Every node of ``tree`` but those of a module-level ``__getattr__`` (``_lazy``'s)."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        pending += [child for child in ast.iter_child_nodes(node) if _getattr_hook(child) is None
                    or not isinstance(node, ast.Module)]


def _getattr_hook(node: ast.AST) -> ast.FunctionDef | None:
    return node if isinstance(node, ast.FunctionDef) and node.name == "__getattr__" else None


def _lazy(module: str, names: tuple[str, ...]) -> tuple[list[str], list[tuple[str, tuple[str, ...]]]]:
    """The imports of course module ``module``'s ``__getattr__`` when ``from module import
    names`` reads one that neither its top level binds nor a submodule is."""
    path = course_file(module)
    if path is None or all(name in _bound(path) or course_file(f"{module}.{name}") for name in names):
        return [], []
    hooks = [node for node in parse(path).body if _getattr_hook(node) is not None]
    found = [_imports(module, ast.Module(body=hook.body, type_ignores=[])) for hook in hooks]
    return [m for course, _ in found for m in course], [s for _, outside in found for s in outside]


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from`` import reads from, a relative one resolved against ``package``."""
    if not node.level:
        return node.module
    parts = package.split(".")
    base = ".".join(parts[:len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _parents(module: str) -> list[str]:
    """The packages above ``module`` (imported, each its ``__init__``, before it)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def in_course(module: str) -> bool:
    return module.split(".")[0] in COURSE


def _judge_named(text: str) -> list[str]:
    """``["grader.judges.<module>"]`` when ``text`` is a judge's dotted name,
    ``"<module>.<function>"`` of a function ``grader/judges/<module>.py`` defines."""
    module, dot, function = text.partition(".")
    if not dot or not module.isidentifier() or not function.isidentifier():
        return []
    path = course_file(f"grader.judges.{module}")
    return [f"grader.judges.{module}"] if path is not None and function in _defined(path) else []


@functools.cache
def _defined(path: Path) -> frozenset[str]:
    """The names a module's top level defines with ``def`` or ``class``."""
    return frozenset(node.name for node in parse(path).body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


@functools.cache
def _bound(path: Path) -> frozenset[str]:
    """Every name a module's top level binds: ``_defined``'s, assigned and imported ones."""
    bound = set(_defined(path))
    for node in parse(path).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(bound)


@functools.cache
def course_file(module: str) -> Path | None:
    """The source file of the course's module ``module`` (dotted); None when it has none."""
    if not in_course(module):
        return None
    path = sources.ROOT.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def preload(exercise_ids) -> "ImportGuard":
    """Import what the decisions of ``exercise_ids`` need (``needed``), now; returns the guard
    (not yet active) for what comes after, dated from before this preload. A course module
    that does not import raises, as it would later; a statement from outside that does not
    (an optional dependency, in a try or never run) is left as it would be found then."""
    since = time.time()
    wanted = needed(tuple(exercise_ids))
    for module in wanted.course:
        importlib.import_module(module)
    for module, names in wanted.statements:
        try:
            importlib.__import__(module, fromlist=names)
        except ImportError:
            pass
    return ImportGuard(since)


class LateImport(ImportError):
    """A module the decider refuses once learner code may have run (``ImportGuard``)."""


CLOCK_MARGIN = 1.0  # seconds: a file's change time may lag the clock read (coarse timestamps)


@dataclass
class ImportGuard:
    """While active (``with guard:``), the only finder on ``sys.meta_path``, in every thread of
    this process; a module not yet imported is found by the finders it replaced, then:

    - one of the course's (``grader``, ``solutions``) is refused: the preload (``needed``) had
      to import it, so its decision is a grader bug;
    - one from a file changed since ``since`` (its source or its bytecode, a namespace
      package's folder) is refused: learner code running unsandboxed could have written it;
    - any other imports: a library's own lazy import (torch imports
      ``torch.fx.experimental.symbolic_shapes`` when a check's ``torch._check`` fails, say),
      which no list derived from the course could foresee, from a file that predates learner
      code. A module absent then is still not found (transformers' ``find_spec("peft")``).

    Each refused module raises ``LateImport`` (an ImportError) and is recorded with why, so
    that the decider turns the verdict into an error naming it (``taken``)."""

    since: float  # time.time() before the preload, so before any learner code could write
    late: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self):
        self._lock, self._finders = threading.Lock(), []

    def find_spec(self, fullname, path=None, target=None):
        if in_course(fullname):
            self._refuse(fullname, "not imported before your code started")
        spec = next((found for finder in self._finders if hasattr(finder, "find_spec")
                     for found in [finder.find_spec(fullname, path, target)] if found is not None), None)
        changed = [f for f in _files(spec) if _changed_at(f) >= self.since - CLOCK_MARGIN] if spec else []
        if changed:
            self._refuse(fullname, f"its file {changed[0]} changed after your code could have run")
        return spec

    def _refuse(self, fullname: str, why: str):
        with self._lock:
            self.late.append((fullname, why))
        raise LateImport(f"the grader's decider refuses to import {fullname!r}: {why}", name=fullname)

    def __enter__(self) -> "ImportGuard":
        self._finders, sys.meta_path[:] = list(sys.meta_path), [self]
        return self

    def __exit__(self, *exc) -> None:
        sys.meta_path[:] = self._finders

    def taken(self) -> list[tuple[str, str]]:
        """(module, why) of each module refused since the last call, once each (and forgets them)."""
        with self._lock:
            taken, self.late[:] = list(dict.fromkeys(self.late)), []
        return taken


def _files(spec) -> list[str]:
    """The files and folders a module would be run from: its source or extension, the bytecode
    Python would read instead, a namespace package's folders."""
    files = [spec.origin] if spec.has_location and spec.origin else []
    files += [spec.cached] if spec.cached and os.path.exists(spec.cached) else []
    return files + ([] if spec.origin else list(spec.submodule_search_locations or []))


def _changed_at(path: str) -> float:
    """When ``path``'s contents or metadata last changed (its ctime, which no call can set back)."""
    try:
        return os.stat(path).st_ctime
    except OSError:
        return float("inf")  # gone since it was found: changed
