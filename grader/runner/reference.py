"""What the learner's code may take from the course's reference, and what it read of it.

While learning (``grader check``) the lessons may import any reference step they have not
written yet. While grading (``--grading``) the runner imports ``solutions`` only from the
sources the decider sends (grader/decider/reference.py), in which the names the graded
exercises withhold are stubs raising ``ReferenceWithheld``, and the sandbox covers the
``solutions`` folder. So a lesson that takes ``max_fn`` from the reference meanwhile loses
only the ``max_fn`` exercise (the decider grades an exercise alone when it used a stub
that another exercise of its runner withheld), and the graded answers are nowhere in the
runner's process or files. ``ReferenceReads`` reports the course files a runner opened.
"""
import importlib.abc
import importlib.machinery
import linecache
import os
import sys
from pathlib import Path

import grader.checks
from grader import sources


class ReferenceWithheld(RuntimeError):
    """A reference function withheld while its exercise is graded, used by a submission."""


class SentReference(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import solutions…`` served from ``{module name: source}`` alone, first on the path."""

    def __init__(self, modules: dict[str, str]):
        self.modules = modules
        for name in [n for n in sys.modules if n == "solutions" or n.startswith("solutions.")]:
            del sys.modules[name]
        sys.meta_path.insert(0, self)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] != "solutions":
            return None
        if name not in self.modules:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return importlib.machinery.ModuleSpec(name, self, is_package=name == "solutions")

    def create_module(self, spec):
        return None

    def get_source(self, name: str) -> str:
        """The source sent for ``name`` (``grader.exercises`` reads the package's exports from them)."""
        return self.modules[name]

    def exec_module(self, module) -> None:
        source = self.modules[module.__name__]
        path = module.__name__.replace(".", "/") + ("/__init__" if module.__name__ == "solutions" else "")
        path = f"{path}.py (as sent for grading)"
        lines = source.splitlines(keepends=True)
        linecache.cache[path] = (len(source), None, lines, path)  # tracebacks show its lines
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)


class ReferenceReads:
    """The course's reference and check files opened from now on, as an audit hook sees them
    (``open`` events, outside traceback formatting): what a runner reports of a submission
    that reads the reference. The learner's code runs in this process, so this is a report,
    not a proof; under ``grader grade`` it is shown per submission."""

    def __init__(self):
        roots = [sources.ROOT / "solutions", Path(grader.checks.__file__).parent]
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
