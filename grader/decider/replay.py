"""The decider's half of a check: the learner's code never runs here; each call's answer is
the runner's next record (``grader.protocol``), checked against the call the check makes."""
from grader import protocol, wire
from grader.checks.harness import CheckRun, Stop
from grader.exercises import Exercise
from grader.observers import observation
from grader.protocol import FINDING_TEXT_LIMITS as TEXT_LIMITS  # noqa: F401  (a runner's findings are
from grader.protocol import MAX_HINT_LEVELS, finding  # noqa: F401  checked there; the tests read them here)
from grader.verdict import ERROR, NOT_DEFINED


class ReplayCheckRun(CheckRun):
    """The decider's check run: the learner's code never runs here. Each lookup and call
    takes the runner's next record (``receive()``), decoded by ``protocol.decode`` and checked
    against the call this check makes; anything malformed ends the check with an error that
    blames the submission. ``mismatch`` says where a record answered another request than this
    replay made (a lookup or call of another index, other arguments, or the check's end): the
    one thing that check code breaking the replay rule causes too, which the decider tells
    apart by replaying the reference (grader/decider/run.py)."""

    def __init__(self, exercise: Exercise, seed: int, receive):
        super().__init__(exercise, None, seed, observation.Observation(observation.REPLAY))
        self.receive, self.remotes, self.calls = receive, {}, 0
        self.mismatch: str | None = None

    def function(self, name: str):
        answer = self._next(protocol.FunctionAnswer, name)
        if answer.value is None:
            raise Stop(NOT_DEFINED, f"`{name}` is not defined in {answer.where}; "
                                    f"the exercise {self.exercise.id} needs it.")
        return self._decoded(answer.value)

    def call(self, fn, *args, what: str = "", **kwargs):
        index, digest = self.calls, wire.digest((fn, args, kwargs))
        self.calls += 1
        answer = self._next(protocol.CallAnswer, index)
        if answer.digest != digest:
            raise self._mismatched(f"the answer to call {index} is for other arguments than the grader passed")
        try:
            self.observation.restore_states(answer.observed)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise _forged(f"what call {index} observed is malformed ({exc})") from None
        if answer.stop is not None:
            stop = answer.stop
            raise Stop(stop.status, stop.summary, tb=stop.traceback, findings=list(stop.findings))
        return self._decoded(answer.result)

    def _next(self, kind: type, key):
        """The runner's next answer, which must be a ``kind`` (FunctionAnswer or CallAnswer)
        for ``key`` (the name or the call's index); the observers' entries sent meanwhile are
        added to their logs."""
        message = self._received()
        while isinstance(message, protocol.ObserverEntry):
            try:
                self.observation.add_entry(message.record())
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise _forged(f"an observer's entry is malformed ({exc})") from None
            message = self._received()
        if isinstance(message, protocol.Crashed):
            raise Stop(ERROR, "the check could not go on with what your code returned: in the "
                              "process running your code it raised an error (-v shows it). An "
                              "object of your own class (a tensor or list subclass) does this; "
                              "return plain tensors, lists and numbers.", tb=message.traceback)
        answered = getattr(message, "name", None) if kind is protocol.FunctionAnswer else getattr(message, "index", None)
        if not isinstance(message, kind) or answered != key:
            what = "function" if kind is protocol.FunctionAnswer else "call"
            why = f"expected the answer to {what} {key!r}, got {str(message.record())[:120]}"
            raise self._mismatched(why) if isinstance(message, protocol.ANSWERS) else _forged(why)
        return message

    def _received(self) -> protocol.Message:
        try:
            return protocol.decode(self.receive())
        except protocol.ProtocolError as exc:
            raise _forged(str(exc)) from None

    def _mismatched(self, why: str) -> Stop:
        self.mismatch = why
        return _forged(why)

    def _decoded(self, data):
        try:
            return wire.decode(data, self.remotes)
        except (wire.WireError, ValueError, TypeError) as exc:
            raise _forged(f"a result does not decode ({exc})") from None


def _forged(why: str) -> Stop:
    return Stop(ERROR, f"the process running your code sent the grader something it never asks "
                       f"for: {why}. Code that writes to the grader's channels, or changes the "
                       "grader's modules, does this.")
