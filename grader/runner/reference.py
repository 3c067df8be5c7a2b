"""What the learner's code may take from the course's reference, and what it read of it.

While learning (``grader check``) the lessons may import any reference step they have not
written yet. While grading (``--grading``) an ``import solutions…`` from the learner's
code gets a ``GatedModule``: every reference name works, except the functions of the
exercise being graded, which raise ``ReferenceRefused`` when used. So a lesson that takes
``max_fn`` from the reference meanwhile is graded on what it wrote itself, and loses only
the ``max_fn`` exercise. The learner's code runs in this process: the gate stops an honest
shortcut and ``ReferenceReads`` reports what was read; neither stops a determined copier
(docs/grading.md).
"""
import importlib
import importlib.machinery
import os
import pkgutil
import sys
import types
from pathlib import Path

import grader.checks
import solutions
from grader.exercises import Exercise


class ReferenceRefused(RuntimeError):
    """A reference function of the exercise being graded, used by a submission."""


class ReferenceGate:
    """A meta path finder that answers ``import solutions…`` with a ``GatedModule``. Every
    module of the reference is imported first (the checks' own code keeps the real ones)."""

    def __init__(self):
        self.exercise: Exercise | None = None  # the exercise being graded now
        for module in pkgutil.walk_packages(solutions.__path__, "solutions."):
            importlib.import_module(module.name)
        self.real = {name: sys.modules.pop(name) for name in list(sys.modules)
                     if name == "solutions" or name.startswith("solutions.")}
        sys.meta_path.insert(0, self)

    def refused(self, value) -> bool:
        """Whether ``value`` is one of the graded exercise's reference functions or classes."""
        if self.exercise is None:
            return False
        module = self.real.get(f"solutions.{self.exercise.module}")
        return any(getattr(module, name, None) is value for name in self.exercise.functions)

    def find_spec(self, name, path=None, target=None):
        if name in self.real:
            return importlib.machinery.ModuleSpec(name, self, is_package=name == "solutions")
        return None

    def create_module(self, spec):
        return GatedModule(spec.name, self)

    def exec_module(self, module) -> None:
        pass


class GatedModule(types.ModuleType):
    """A reference module seen through the gate: its callables come as ``GatedName``s."""

    def __init__(self, name: str, gate: ReferenceGate):
        super().__init__(name)
        self._gate = gate

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        value = getattr(self._gate.real[self.__name__], attribute)
        return GatedName(f"{self.__name__}.{attribute}", value, self._gate) if callable(value) else value


class GatedName:
    """A reference function or class, usable unless it belongs to the exercise being graded
    when it is used (one import serves every exercise of a run)."""

    def __init__(self, name: str, value, gate: ReferenceGate):
        self._name, self._value, self._gate = name, value, gate
        self.__name__ = self.__qualname__ = name.rsplit(".", 1)[-1]  # how verdicts name it

    def _allowed(self):
        if self._gate.refused(self._value):
            raise ReferenceRefused(
                f"`{self._name}` is refused while grading {self._gate.exercise.id}: it is the "
                "exercise itself. Write it in lessons/; the reference's other steps stay allowed.")
        return self._value

    def __call__(self, *args, **kwargs):
        return self._allowed()(*args, **kwargs)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return getattr(self._allowed(), attribute)

    def __instancecheck__(self, instance) -> bool:
        return isinstance(instance, self._allowed())

    def __subclasscheck__(self, subclass) -> bool:
        return issubclass(subclass, self._allowed())

    def __repr__(self) -> str:
        return f"<{self._name}, through the grading gate>"


class ReferenceReads:
    """The course's reference and check files opened from now on, as an audit hook sees them
    (``open`` events, outside traceback formatting): what a runner reports of a submission
    that reads the reference. The learner's code runs in this process, so this is a report,
    not a proof; under ``grader grade`` it is shown per submission."""

    def __init__(self):
        roots = [Path(package.__file__).parent for package in (solutions, grader.checks)]
        self.roots, self.opened = [str(r) + os.sep for r in roots], []
        sys.addaudithook(self.hook)

    def hook(self, event: str, args) -> None:
        if event != "open" or not isinstance(args[0], str):
            return
        path = os.path.abspath(args[0])
        if any(path.startswith(root) for root in self.roots) and path not in self.opened:
            caller = sys._getframe(1)
            while caller is not None and caller.f_globals.get("__name__") not in ("linecache", "tokenize"):
                caller = caller.f_back
            if caller is None:  # not a traceback's source lines
                self.opened.append(path)

    def taken(self) -> list[str]:
        """The files opened since the last call."""
        opened, self.opened = self.opened, []
        return opened
