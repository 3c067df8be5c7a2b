"""The runner's half of a check: the learner's code is imported and called here, and what
each call gave is sent to the decider as a JSON-able record (``grader.protocol``), in order."""
import traceback
from types import ModuleType

from grader import implementation, protocol, wire
from grader.checks.harness import CheckRun, Stop, checked, learner_frame
from grader.exercises import Exercise
from grader.observers import observation


class RecordingCheckRun(CheckRun):
    """The runner's check run: it calls the learner's code as CheckRun does, and sends
    what each lookup and call gave (``send`` takes one JSON-able message)."""

    def __init__(self, exercise: Exercise, module: ModuleType, seed: int, send):
        super().__init__(exercise, module, seed, observation.Observation(observation.RECORD, send))
        self.send, self.handles, self.calls = send, wire.Handles(), 0

    def function(self, name: str):
        value = getattr(self.module, name, None)
        where = getattr(self.module, "__file__", None) or self.module.__name__
        self.send(protocol.FunctionAnswer(name, str(where), None if value is None else
                                          wire.encode(value, self.handles)).record())
        return super().function(name)

    def judge(self, name: str, *args, **kwargs) -> None:
        """Nothing here: the judges are the decider's, and the sandbox hides them."""

    def call(self, fn, *args, what: str = "", **kwargs):
        index, digest = self.calls, wire.digest((fn, args, kwargs), self.handles)
        self.calls += 1
        try:
            result = super().call(fn, *args, what=what, **kwargs)
        except Stop as stop:
            stopped = protocol.StopRecord(stop.status, stop.summary, stop.tb, tuple(stop.findings))
            self.send(protocol.CallAnswer(index, digest, self.observation.changed_states(), stop=stopped).record())
            raise
        self.send(protocol.CallAnswer(index, digest, self.observation.changed_states(),
                                      result=wire.encode(result, self.handles)).record())
        return result


def load_error(exc: BaseException) -> protocol.LoadError:
    """What importing the implementation raised (which ``verdict.load_error_verdict`` words):
    a syntax error, no implementation found, or anything else its top level raised
    (SystemExit or KeyboardInterrupt too)."""
    kinds = protocol.LoadErrorKind
    if isinstance(exc, SyntaxError):
        return protocol.load_error({"kind": kinds.SYNTAX, "file": exc.filename, "line": exc.lineno or 0,
                                    "message": exc.msg})
    if isinstance(exc, implementation.ImplementationNotFound):
        return protocol.load_error({"kind": kinds.MISSING, "message": exc})
    return protocol.load_error({"kind": kinds.RAISED, "message": f"{type(exc).__name__}: {exc}",
                                "frame": learner_frame(exc), "traceback": "".join(traceback.format_exception(exc))})


def run_recorded(exercise, impl: str, seed: int, send, isolation: implementation.Isolation | None = None) -> None:
    """Import ``impl`` and run the check, sending what it learns; a failed import is sent
    as ``load_error`` (the decider words the verdict). ``isolation``: the exercise is graded
    on its own functions, the reference's standing in for the other exercises' steps."""
    try:
        module = isolation.load(exercise) if isolation else implementation.load(impl, exercise.module)
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        send(load_error(exc).record())
        return
    try:
        checked(RecordingCheckRun(exercise, module, seed, send))
    except Exception:  # the check's own code, handed an object that breaks it
        send(protocol.Crashed(traceback.format_exc()[-3000:]).record())
