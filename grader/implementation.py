"""Find and import the implementation under test: `lessons`, `solutions`, a module or a file."""
import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

DEFAULT_IMPL = "lessons"


class ImplementationNotFound(Exception):
    """``--impl`` names no file and no importable module."""


def is_file(spec: str) -> bool:
    return spec.endswith(".py") or Path(spec).is_file()


def locate(spec: str) -> Path:
    """The file or package directory ``spec`` names, found without running any of it.

    Raises ImplementationNotFound (a usage error: nothing to check) when there is none.
    """
    if is_file(spec):
        path = Path(spec).resolve()
        if not path.is_file():
            raise ImplementationNotFound(f"no implementation file at {spec!r}; expected a path "
                                         "to a .py file, `lessons`, `solutions` or a module name")
        return path
    found = _find(spec)
    if found is None:
        raise ImplementationNotFound(f"no module named {spec!r}; expected `lessons`, "
                                     "`solutions`, an importable module or a path to a .py file")
    return found


def load(spec: str, module: str) -> ModuleType:
    """Import the code that defines an exercise.

    ``spec`` is a path to a ``.py`` file, a package (``lessons``, ``solutions``) whose
    submodule ``module`` is imported alone, so that a syntax error in one lesson does not
    hide the others, or any other dotted module name. A file is imported under a private
    module name, so it never shadows the course's packages; it is only read, never written.
    """
    path = locate(spec)
    if is_file(spec):
        name = "learner_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
        module_spec = importlib.util.spec_from_file_location(name, path)
        imported = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = imported
        module_spec.loader.exec_module(imported)
        return imported
    if path.is_dir():
        return importlib.import_module(f"{spec}.{module}")
    return importlib.import_module(spec)


def source_file(spec: str, module: str) -> Path | None:
    """The file whose contents decide the verdict (for progress records), if there is one."""
    try:
        path = locate(spec)
    except ImplementationNotFound:
        return None
    return path / f"{module}.py" if path.is_dir() else path


def _find(name: str) -> Path | None:
    """A module's file, or a package's directory, without importing it or its parents."""
    first, *rest = name.split(".")
    try:
        found = importlib.util.find_spec(first)  # a top-level name: nothing is executed
    except (ImportError, ValueError):  # a malformed name
        return None
    if found is None:
        return None
    if not found.submodule_search_locations:
        return Path(found.origin) if found.origin and not rest else None
    path = Path(found.submodule_search_locations[0])
    for part in rest:
        if (path / part).is_dir():
            path = path / part
        elif (path / f"{part}.py").is_file():
            path = path / f"{part}.py"
        else:
            return None
    return path
