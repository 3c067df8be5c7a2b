"""The runner's half of a check: the learner's code is imported and called here, and what
each call gave is sent to the decider as a JSON-able record, in order."""
import importlib
import importlib.machinery
import os
import sys
import types
import traceback
from dataclasses import asdict
from pathlib import Path
from types import ModuleType

from grader import implementation, wire
from grader.checks.harness import CheckRun, Stop, checked, learner_frame
from grader.exercises import Exercise
from grader.observers import observation


class RecordingCheckRun(CheckRun):
    """The runner's check run: it calls the learner's code as CheckRun does, and sends
    what each lookup and call gave (``send`` takes one JSON-able message)."""

    def __init__(self, exercise: Exercise, module: ModuleType, seed: int, send):
        super().__init__(exercise, module, seed)
        self.send, self.handles, self.calls = send, wire.Handles(), 0
        observation.send_entries_to(send)

    def function(self, name: str):
        value = getattr(self.module, name, None)
        where = getattr(self.module, "__file__", None) or self.module.__name__
        self.send({"function": name, "where": str(where),
                   "value": None if value is None else wire.encode(value, self.handles)})
        return super().function(name)

    def call(self, fn, *args, what: str = "", **kwargs):
        index, digest = self.calls, wire.digest((fn, args, kwargs), self.handles)
        self.calls += 1
        try:
            result = super().call(fn, *args, what=what, **kwargs)
        except Stop as stop:
            self.send({"call": index, "digest": digest, "observed": observation.changed_states(),
                       "stop": {"status": stop.status, "summary": stop.summary, "traceback": stop.tb,
                                "findings": [asdict(f) for f in stop.findings]}})
            raise
        self.send({"call": index, "digest": digest, "observed": observation.changed_states(),
                   "result": wire.encode(result, self.handles)})
        return result


def run_recorded(exercise, impl: str, seed: int, send, grading: bool) -> None:
    """Import ``impl`` and run the check, sending what it learns; a failed import is sent
    as ``load_error`` (the decider words the verdict)."""
    try:
        if grading:
            refuse_reference_imports()
        module = implementation.load(impl, exercise.module)
    except SyntaxError as exc:
        send({"load_error": {"kind": "syntax", "file": str(exc.filename), "line": exc.lineno or 0,
                             "message": str(exc.msg)}})
        return
    except implementation.ImplementationNotFound as exc:
        send({"load_error": {"kind": "missing", "message": str(exc)}})
        return
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        send({"load_error": {"kind": "raised", "message": f"{type(exc).__name__}: {exc}",
                             "frame": learner_frame(exc), "traceback": traceback.format_exc()}})
        return
    try:
        checked(RecordingCheckRun(exercise, module, seed, send))
    except Exception:  # the check's own code, handed an object that breaks it
        send({"crashed": traceback.format_exc()[-3000:]})


def refuse_reference_imports() -> None:
    """In grading mode the learner's code may not import ``solutions``: the check has
    imported what it needs already, so a later import can only be the learner's."""
    for name in [n for n in sys.modules if n == "solutions" or n.startswith("solutions.")]:
        del sys.modules[name]  # the course's modules keep theirs; a new import asks the blocker
    sys.meta_path.insert(0, ReferenceBlocker())


class ReferenceBlocker:
    """A meta path finder that answers ``import solutions…`` with a ``RefusedModule``: the
    import succeeds, and only a use of one of its names fails, so a module that takes one
    helper from the reference loses only the exercises that call it."""

    def find_spec(self, name, path=None, target=None):
        if name == "solutions" or name.startswith("solutions."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return RefusedModule(spec.name)

    def exec_module(self, module) -> None:
        pass


class ReferenceRefused(RuntimeError):
    """A name of the course's reference used by a submission while grading."""


class RefusedModule(types.ModuleType):
    """Every public name is a ``RefusedName``."""

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return RefusedName(f"{self.__name__}.{attribute}")


class RefusedName:
    """Raises ReferenceRefused when called or looked into."""

    def __init__(self, name: str):
        self._name = name

    def _refuse(self, *args, **kwargs):
        raise ReferenceRefused(f"`{self._name}` is refused while grading: submissions may not use "
                               "the course's reference implementation. Write it in lessons/ "
                               "(`grader check` allows the reference while you learn)")

    __call__ = _refuse

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        self._refuse()


class ReferenceReads:
    """The course's reference and check files opened from now on, as an audit hook sees them
    (``open`` events, outside traceback formatting): what a runner reports of a submission
    that reads the reference. The learner's code runs in this process, so this is a report,
    not a proof; under ``grader grade`` it is shown per submission."""

    def __init__(self):
        roots = [Path(importlib.import_module(p).__file__).parent for p in ("solutions", "grader.checks")]
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


class redirected_output:
    """Send file descriptors 1 and 2 (Python and C prints alike) to ``path`` for a while."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        sys.stdout.flush(), sys.stderr.flush()
        self.saved = os.dup(1), os.dup(2)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1), os.dup2(fd, 2)
        os.close(fd)

    def __exit__(self, *exc):
        try:
            sys.stdout.flush(), sys.stderr.flush()
        except OSError:
            pass  # the output limit was reached; the file already says enough
        os.dup2(self.saved[0], 1), os.dup2(self.saved[1], 2)
        os.close(self.saved[0]), os.close(self.saved[1])
