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


def load(spec: str, module: str) -> ModuleType:
    """Import the code that defines an exercise.

    ``spec`` is a path to a ``.py`` file, a package (``lessons``, ``solutions``) whose
    submodule ``module`` is imported alone, so that a syntax error in one lesson does not
    hide the others, or any other dotted module name. A file is imported under a private
    module name, so it never shadows the course's packages; it is only read, never written.
    """
    if is_file(spec):
        path = Path(spec).resolve()
        if not path.is_file():
            raise ImplementationNotFound(f"no implementation file at {spec!r}; expected a path "
                                         "to a .py file, `lessons`, `solutions` or a module name")
        name = "learner_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
        module_spec = importlib.util.spec_from_file_location(name, path)
        imported = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = imported
        module_spec.loader.exec_module(imported)
        return imported
    if _find(spec) is None:
        raise ImplementationNotFound(f"no module named {spec!r}; expected `lessons`, "
                                     "`solutions`, an importable module or a path to a .py file")
    package = importlib.import_module(spec)
    if hasattr(package, "__path__"):
        return importlib.import_module(f"{spec}.{module}")
    return package


def source_file(spec: str, module: str) -> Path | None:
    """The file whose contents decide the verdict (for progress records), if there is one."""
    if is_file(spec):
        return Path(spec).resolve()
    found = _find(spec)
    if found is None:
        return None
    if found.submodule_search_locations:
        return Path(found.submodule_search_locations[0]) / f"{module}.py"
    return Path(found.origin) if found.origin else None


def _find(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):  # a parent package is missing, or the name is malformed
        return None
