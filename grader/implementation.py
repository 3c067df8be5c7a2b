"""Find and import the implementation under test: `lessons`, `solutions`, a module or a file."""
import functools
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from grader import sources

DEFAULT_IMPL = "lessons"
PUBLIC_MARK = "solutions/PUBLIC.md"  # present in the public reference alone (grader/release/public.py)


class ImplementationNotFound(Exception):
    """``--impl`` names no file and no importable module."""


def has_checks() -> bool:
    """Whether this copy of the course can check anything: it holds the reference, or the
    public one that a release without solutions ships."""
    return (sources.ROOT / "solutions" / "__init__.py").is_file()


def has_reference() -> bool:
    """Whether this copy of the course holds its reference, ``solutions/`` (not the public one)."""
    return has_checks() and not (sources.ROOT / PUBLIC_MARK).is_file()


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


class Isolation:
    """Exercises graded on their own functions alone (``grader grade``, ``grader check
    --isolated``), one after another in one runner: in the learner's modules, every other
    exercise's step (``Exercise.withheld`` of the others: ``max_fn``, ``speculative_sampling``,
    a loop's ``settle``…) is the reference's, so that one bug costs one exercise. What the
    runner withholds (``__withheld__`` of a sent reference module: grader/decider/reference.py)
    never stands in: there the learner's own step stays, so the exercises a runner grades
    together must withhold the same names (grader/decider/run.py groups them so) for each to
    be graded as in a runner of its own. A learner module other than the graded one that
    fails to import is replaced by the reference's (a broken ``lessons/__init__.py`` by a
    package that finds each name in its module), with one printed line saying so: it costs
    only its own exercises, whose ``load`` raises its error again.

    The learner's modules are rebound as each is executed (an import hook), then every alias
    they hold of one another (``from lessons.verification import speculative_sampling`` run
    before that module was seen, a package's cache). Functions' default values and closures
    keep what they were given at import."""

    def __init__(self, spec: str, catalogue):
        """``catalogue``: ``grader.exercises`` (its EXERCISES and EXPORTS), handed in by the runner."""
        self.spec, self.catalogue, self.exercise = spec, catalogue, None
        self.steps: dict[str, set[str]] = {}  # module -> the other exercises' names in it
        self.replaced: dict[int, tuple[object, object]] = {}  # id(learner's) -> (learner's, reference's)
        self.failures: dict[str, BaseException] = {}  # learner module -> what importing it raised
        self.hooked = False

    def load(self, exercise) -> ModuleType:
        """The implementation of ``exercise`` (``load``), the other exercises' steps the reference's."""
        if not self.hooked and not is_file(self.spec) and locate(self.spec).is_dir():
            sys.meta_path.insert(0, _IsolatingFinder(self))
        self.hooked, self.exercise, self.steps = True, exercise, {}
        for other in self.catalogue.EXERCISES:
            for name in other.withheld:
                if not (other.module == exercise.module and name in exercise.withheld):
                    self.steps.setdefault(other.module, set()).add(name)
        failed = self.failures.get(f"{self.spec}.{exercise.module}")
        if failed is not None:  # it failed while another exercise's module imported it
            raise failed
        for learner in self._learners():
            self.executed(learner)
        module = load(self.spec, exercise.module)
        if is_file(self.spec):  # one file holds every step: each name owned by one module alone
            owners: dict[str, list[str]] = {}
            for owner, names in self.steps.items():
                for name in names:
                    owners.setdefault(name, []).append(owner)
            for name, found in owners.items():
                if len(found) == 1 and name in vars(module) and name not in exercise.withheld:
                    self._replace(module, name, found[0])
        for learner in [module, *self._learners()]:
            for name, value in list(vars(learner).items()):
                pair = self.replaced.get(id(value))
                if pair is not None and pair[0] is value:
                    setattr(learner, name, pair[1])
        return module

    def executed(self, module: ModuleType) -> None:
        """A learner module executed: the other exercises' steps in it become the reference's."""
        owner = module.__name__.rpartition(".")[2]
        for name in sorted(self.steps.get(owner, ()) if module.__name__ != self.spec else ()):
            self._replace(module, name, owner)

    def failed(self, module: ModuleType, exc: BaseException) -> None:
        """A learner module other than the graded one raised on import: the reference's takes its place."""
        self.failures[module.__name__] = exc
        where = module.__name__.replace(".", "/") + ("/__init__.py" if module.__name__ == self.spec else ".py")
        print(f"grader: {where} failed to import ({type(exc).__name__}: {str(exc)[:200]}); "
              f"{self.exercise.id} was graded with the reference's in its place.", flush=True)
        if module.__name__ == self.spec:
            module.__getattr__ = functools.partial(_exported, self.spec, self.catalogue.EXPORTS)
            return
        reference = _reference(module.__name__.rpartition(".")[2])
        if reference is not None:
            withheld = getattr(reference, "__withheld__", ())
            vars(module).update({k: v for k, v in vars(reference).items()
                                 if not k.startswith("__") and k not in withheld})

    def _learners(self) -> list[ModuleType]:
        return [m for n, m in list(sys.modules.items()) if n == self.spec or n.startswith(self.spec + ".")]

    def _replace(self, module: ModuleType, name: str, owner: str) -> None:
        reference = _reference(owner)
        if reference is None or name in getattr(reference, "__withheld__", ()) or not hasattr(reference, name):
            return  # withheld while this exercise is graded: the learner's own step stays
        original = vars(module).get(name)
        if original is not None and original is not getattr(reference, name):
            self.replaced[id(original)] = (original, getattr(reference, name))
        setattr(module, name, getattr(reference, name))


class _IsolatingFinder(importlib.abc.MetaPathFinder):
    """Finds the learner's package and its modules as usual, and loads each through ``_Isolating``."""

    def __init__(self, isolation: Isolation):
        self.isolation = isolation

    def find_spec(self, name, path=None, target=None):
        package = self.isolation.spec
        if name != package and not name.startswith(package + "."):
            return None
        found = importlib.machinery.PathFinder.find_spec(name, path)
        if found is not None and found.loader is not None:
            found.loader = _Isolating(found.loader, self.isolation)
        return found


class _Isolating(importlib.abc.Loader):
    """A learner module's loader that hands the module to ``Isolation`` once executed, or when
    it fails (but for the graded module, whose failure is the exercise's)."""

    def __init__(self, loader, isolation: Isolation):
        self.loader, self.isolation = loader, isolation

    def __getattr__(self, name):  # the rest of a loader's interface (get_source, is_package…)
        if name == "loader":  # not set yet (a copy): no recursion
            raise AttributeError(name)
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        graded = f"{self.isolation.spec}.{self.isolation.exercise.module}"
        try:
            self.loader.exec_module(module)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt at import time too
            if module.__name__ == graded:
                raise
            self.isolation.failed(module, exc)
        self.isolation.executed(module)


def _exported(package: str, exports: dict[str, tuple[str, ...]], name: str):
    """``package.name`` found in the module that exports it (``exports``: ``grader.exercises.EXPORTS``)."""
    module = next((m for m, names in exports.items() if name in names), None)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{package}.{module}"), name)


def _reference(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"solutions.{module}")
    except ImportError:  # a release without the reference: nothing stands in
        return None
