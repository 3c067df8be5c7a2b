"""The runner's half of a check: the learner's code is imported and called here, and what
each call gave is sent to the decider as a JSON-able record, in order."""
import traceback
from dataclasses import asdict
from types import ModuleType

from grader import implementation, wire
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
        self.send({"function": name, "where": str(where),
                   "value": None if value is None else wire.encode(value, self.handles)})
        return super().function(name)

    def judge(self, name: str, *args, **kwargs) -> None:
        """Nothing here: the judges are the decider's, and the sandbox hides them."""

    def call(self, fn, *args, what: str = "", **kwargs):
        index, digest = self.calls, wire.digest((fn, args, kwargs), self.handles)
        self.calls += 1
        try:
            result = super().call(fn, *args, what=what, **kwargs)
        except Stop as stop:
            self.send({"call": index, "digest": digest, "observed": self.observation.changed_states(),
                       "stop": {"status": stop.status, "summary": stop.summary, "traceback": stop.tb,
                                "findings": [asdict(f) for f in stop.findings]}})
            raise
        self.send({"call": index, "digest": digest, "observed": self.observation.changed_states(),
                   "result": wire.encode(result, self.handles)})
        return result


def load_error(exc: BaseException) -> dict:
    """What importing the implementation raised, as plain data (the ``load_error`` record,
    which ``verdict.load_error_verdict`` words): a syntax error, no implementation found,
    or anything else its top level raised (SystemExit or KeyboardInterrupt too)."""
    if isinstance(exc, SyntaxError):
        return {"kind": "syntax", "file": str(exc.filename), "line": exc.lineno or 0, "message": str(exc.msg)}
    if isinstance(exc, implementation.ImplementationNotFound):
        return {"kind": "missing", "message": str(exc)}
    return {"kind": "raised", "message": f"{type(exc).__name__}: {exc}", "frame": learner_frame(exc),
            "traceback": "".join(traceback.format_exception(exc))}


def run_recorded(exercise, impl: str, seed: int, send, isolation: implementation.Isolation | None = None) -> None:
    """Import ``impl`` and run the check, sending what it learns; a failed import is sent
    as ``load_error`` (the decider words the verdict). ``isolation``: the exercise is graded
    on its own functions, the reference's standing in for the other exercises' steps."""
    try:
        module = isolation.load(exercise) if isolation else implementation.load(impl, exercise.module)
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        send({"load_error": load_error(exc)})
        return
    try:
        checked(RecordingCheckRun(exercise, module, seed, send))
    except Exception:  # the check's own code, handed an object that breaks it
        send({"crashed": traceback.format_exc()[-3000:]})
