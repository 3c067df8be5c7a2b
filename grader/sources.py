"""The course's own code, executed only from verified source: never from bytecode caches.

A runner that could write files (unsandboxed) might plant a ``.pyc`` beside a grader module
with the source's size and time, which Python would then run instead of the source. So the
``grader`` and ``solutions`` packages are imported through ``SourceOnlyFinder``: each
module is compiled from its source text, and no bytecode is read or written for it.

``Manifest`` is the digest of every file of those packages (code, model weights and
configs), made by the decider before any runner starts; ``changed()`` names the files that
differ from it since. ``install`` puts the finder in place: ``course_alone`` does, first in
every grader process (the command line, each submission's decider, each runner), and so do
the decider's entry (``grader.decider.run_isolated``) and the notebook's ``check``, so that it
covers every module of the course a decider imports.
"""
import ast
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

PACKAGES = ("grader", "solutions")
ROOT = Path(__file__).resolve().parent.parent


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """A source loader that compiles the source every time and writes no bytecode."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return compile(self.get_data(path), path, "exec", dont_inherit=True)


class SourceOnlyFinder(importlib.abc.MetaPathFinder):
    """Finds the course's packages as usual, then loads them with ``SourceOnlyLoader``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = SourceOnlyLoader(fullname, spec.origin)
            spec.cached = None
        return spec


def course_alone() -> None:
    """Make this process, and every Python it starts, import the course's ``grader`` and
    ``solutions`` alone, or stop it saying why (exit 2). ``python -m`` and ``python -c`` put
    the working folder first on ``sys.path``, and a class folder may hold a package named
    ``solutions``: the working folder (unless it is the course) leaves ``sys.path``, child
    Pythons start without it (``PYTHONSAFEPATH``), and a package that would still come from
    outside the course (a ``PYTHONPATH`` entry) stops the process before it is imported.
    Every grader process calls this first: the command line, each submission's decider,
    each runner. Every module of the course imported from here on runs from its source
    (``install``)."""
    install()
    working = Path.cwd().resolve()
    if working != ROOT:
        sys.path[:] = [entry for entry in sys.path if not _names(entry, working)]
    os.environ["PYTHONSAFEPATH"] = "1"
    for package in PACKAGES:
        found = _package_folder(package)
        if found is not None and found != ROOT / package:
            print(f"grader: refusing to start: `{package}` would be imported from {found}, not from "
                  f"the course at {ROOT / package}. Remove that folder from PYTHONPATH (or rename the "
                  f"package there); the grader imports only the course's own `{package}`.", file=sys.stderr)
            raise SystemExit(2)


def _names(entry: str, folder: Path) -> bool:
    """Whether the ``sys.path`` entry ``entry`` is ``folder`` ("" is the working folder)."""
    try:
        return Path(entry or ".").resolve() == folder
    except (OSError, RuntimeError):  # a path that cannot be resolved names no folder here
        return False


def _package_folder(package: str) -> Path | None:
    """The folder (or file) a top-level ``package`` is, or would be, imported from; None when
    there is none. Nothing of it is executed."""
    module = sys.modules.get(package)
    if module is not None:
        where = list(getattr(module, "__path__", [])) or [getattr(module, "__file__", None)]
    else:
        spec = importlib.util.find_spec(package)
        if spec is None:
            return None
        where = list(spec.submodule_search_locations or []) or [spec.origin]
    return Path(where[0]).resolve() if where[0] else None


def exports() -> dict[str, tuple[str, ...]]:
    """``EXPORTS`` of the reference ({module: the names the package exports from it}): the
    ``MODULES`` literal of ``solutions/__init__.py`` and each module's ``__all__`` literal, read
    from their sources. Nothing of the reference runs for it, and a grading runner, whose
    sandbox hides the reference's folder, reads the sources the decider sent
    (grader/runner/reference.py). Raises ValueError when a source is missing or holds no
    such literal."""
    package = importlib.util.find_spec("solutions")
    if package is None or package.loader is None:
        raise ValueError("no package `solutions` to read the reference's exports from")
    modules = _literal(_source(package, "solutions"), "solutions/__init__.py", "MODULES", "(module, ...)")
    return {module: _literal(_source(package, f"solutions.{module}"), f"solutions/{module}.py", "__all__",
                             "[name, ...]") for module in modules}


def _source(package: importlib.machinery.ModuleSpec, name: str) -> str:
    """The source of ``name``, the package itself or one of its modules, never importing it:
    a module of a folder as the path finder finds it there, one of sent sources from the
    package's loader, which holds them all. Raises ValueError when there is none."""
    try:
        if name != package.name and package.submodule_search_locations:
            spec = importlib.machinery.PathFinder.find_spec(name, package.submodule_search_locations)
            source = spec.loader.get_source(name) if spec is not None and spec.loader is not None else None
        else:
            source = package.loader.get_source(name)
    except (ImportError, KeyError, OSError):
        source = None
    if source is None:
        raise ValueError(f"no source of the module `{name}` to read the reference's exports from")
    return source


def _literal(source: str, path: str, variable: str, form: str) -> tuple[str, ...]:
    """The tuple or list of strings assigned to ``variable`` at the top of ``source``, as a
    tuple. Raises ValueError, naming ``path`` and the expected ``form``, when there is none."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [variable]:
            try:
                found = ast.literal_eval(node.value)
            except ValueError:  # an expression that is not a literal: fails below
                break
            if type(found) in (tuple, list) and all(type(name) is str for name in found):
                return tuple(found)
    raise ValueError(f"{path} has no `{variable} = {form}` literal of strings; expected the names "
                     f"the reference exports, written out")


def install() -> None:
    """Put ``SourceOnlyFinder`` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, SourceOnlyFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, SourceOnlyFinder())


def _files() -> list[Path]:
    """Every file of the course's packages, bytecode caches left out (never executed)."""
    found = []
    for package in PACKAGES:
        found += [p for p in sorted((ROOT / package).rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    return found


class Manifest:
    """The sha256 of every file of the course's packages, taken when made."""

    def __init__(self):
        self.digests = {path: _digest(path) for path in _files()}

    def changed(self) -> list[str]:
        """The files (relative to the course's root) added, removed or rewritten since."""
        now = set(_files())
        differ = [p for p in self.digests if p not in now or _digest(p) != self.digests[p]]
        return [str(p.relative_to(ROOT)) for p in sorted(differ + list(now - self.digests.keys()))]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
