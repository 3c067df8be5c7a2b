"""The decider's half of a check: the learner's code never runs here; each call's answer is
the runner's next record, checked against the call the check makes."""
import math
from dataclasses import fields

from grader import wire
from grader.checks.harness import CheckRun, Stop
from grader.exercises import Exercise
from grader.observers import observation
from grader.verdict import ERROR, FAILED, KINDS, NOT_DEFINED, NOT_STARTED, Finding


class ReplayCheckRun(CheckRun):
    """The decider's check run: the learner's code never runs here. Each lookup and call
    takes the runner's next record (``receive()``), checked against the call this check
    makes; anything malformed ends the check with an error that blames the submission.
    ``mismatch`` says where a record answered another request than this replay made (a
    lookup or call of another index, other arguments, or the check's end): the one thing
    that check code breaking the replay rule causes too, which the decider tells apart by
    replaying the reference (grader/decider/run.py)."""

    STOPS = (ERROR, FAILED, NOT_STARTED)  # what a runner's Stop may say: never a pass
    REQUESTS = ("function", "call", "end")  # the records that answer a request, or end the check

    def __init__(self, exercise: Exercise, seed: int, receive):
        super().__init__(exercise, None, seed, observation.Observation(observation.REPLAY))
        self.receive, self.remotes, self.calls = receive, {}, 0
        self.mismatch: str | None = None

    def function(self, name: str):
        record = self._next("function", name)
        if record["value"] is None:
            raise Stop(NOT_DEFINED, f"`{name}` is not defined in {_text(record, 'where')}; "
                                    f"the exercise {self.exercise.id} needs it.")
        return self._decoded(record["value"])

    def call(self, fn, *args, what: str = "", **kwargs):
        index, digest = self.calls, wire.digest((fn, args, kwargs))
        self.calls += 1
        record = self._next("call", index)
        if record.get("digest") != digest:
            raise self._mismatched(f"the answer to call {index} is for other arguments than the grader passed")
        try:
            self.observation.restore_states(record.get("observed", {}))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise _forged(f"what call {index} observed is malformed ({exc})") from None
        if "stop" in record:
            raise self._stop(record["stop"])
        if "result" not in record:
            raise _forged(f"call {index} has no result")
        return self._decoded(record["result"])

    def _next(self, kind: str, key) -> dict:
        record = self.receive()
        while type(record) is dict and "entry" in record:  # what an observer logged meanwhile
            try:
                self.observation.add_entry(record)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                raise _forged(f"an observer's entry is malformed ({exc})") from None
            record = self.receive()
        if type(record) is dict and "crashed" in record:
            raise Stop(ERROR, "the check could not go on with what your code returned: in the "
                              "process running your code it raised an error (-v shows it). An "
                              "object of your own class (a tensor or list subclass) does this; "
                              "return plain tensors, lists and numbers.", tb=_text(record, "crashed"))
        if type(record) is not dict or record.get(kind) != key:
            why = f"expected the answer to {kind} {key!r}, got {str(record)[:120]}"
            answers = type(record) is dict and any(request in record for request in self.REQUESTS)
            raise self._mismatched(why) if answers else _forged(why)
        return record

    def _mismatched(self, why: str) -> Stop:
        self.mismatch = why
        return _forged(why)

    def _decoded(self, data):
        try:
            return wire.decode(data, self.remotes)
        except (wire.WireError, ValueError, TypeError) as exc:
            raise _forged(f"a result does not decode ({exc})") from None

    def _stop(self, data) -> Stop:
        try:
            if data["status"] not in self.STOPS:
                raise ValueError(f"status {data['status']!r}")
            if type(data["findings"]) is not list or len(data["findings"]) > MAX_FINDINGS:
                raise ValueError(f"findings are not a list of at most {MAX_FINDINGS}")
            findings = [finding(f) for f in data["findings"]]
            return Stop(data["status"], _text(data, "summary"), tb=_text(data, "traceback"),
                        findings=findings)
        except (KeyError, TypeError, ValueError) as exc:
            return _forged(f"a Stop is malformed ({exc})")


MAX_FINDINGS = 200
TEXT_LIMITS = {"name": 500, "case": 500, "message": 5000, "hint": 5000}
MAX_TABLE_ROWS, MAX_TABLE_COLUMNS, MAX_CELL = 100, 20, 300
MAX_HINT_LEVELS = 4


def finding(data) -> Finding:
    """A Finding from a runner's record, every field checked: text where text is expected
    (cut to its limit), one of KINDS, a table of at most MAX_TABLE_ROWS rows of as many short
    strings, a finite statistic, a p-value in [0, 1], a count of draws. Raises ValueError
    otherwise."""
    if type(data) is not dict or not set(data) <= {f.name for f in fields(Finding)} or \
            not {"name", "kind", "message"} <= set(data):
        raise ValueError("a finding is not a record of a property's name, its kind, a message and "
                         "Finding's other fields")
    if data["kind"] not in KINDS:
        raise ValueError(f"a finding's kind is not one of {KINDS}")
    text = {}
    for name, limit in TEXT_LIMITS.items():
        value = data.get(name, "")
        if type(value) is not str:
            raise ValueError(f"a finding's {name} is not text")
        text[name] = value[:limit]
    more = data.get("more_hints", [])
    if type(more) is not list or len(more) > MAX_HINT_LEVELS or any(type(h) is not str for h in more):
        raise ValueError(f"a finding's more_hints are not a list of at most {MAX_HINT_LEVELS} texts")
    return Finding(**text, kind=data["kind"], table=_table(data.get("table")),
                   statistic=_number(data.get("statistic"), "statistic"),
                   p_value=_number(data.get("p_value"), "p_value", 0.0, 1.0),
                   draws=_count(data.get("draws")), more_hints=[h[:TEXT_LIMITS["hint"]] for h in more])


def _table(table) -> list[list[str]] | None:
    if table is None:
        return None
    if (type(table) is not list or not 0 < len(table) <= MAX_TABLE_ROWS
            or any(type(row) is not list or len(row) != len(table[0]) for row in table)
            or not 0 < len(table[0]) <= MAX_TABLE_COLUMNS
            or any(type(cell) is not str for row in table for cell in row)):
        raise ValueError(f"a finding's table is not 1 to {MAX_TABLE_ROWS} rows of as many strings")
    return [[cell[:MAX_CELL] for cell in row] for row in table]


def _number(value, name: str, low: float = -math.inf, high: float = math.inf) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"a finding's {name} is not a finite number in [{low}, {high}]")
    return float(value)


def _count(value) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < 2**53:
        raise ValueError("a finding's draws is not a count")
    return value


def _text(record: dict, key: str) -> str:
    value = record.get(key)
    return value[:20000] if isinstance(value, str) else ""


def _forged(why: str) -> Stop:
    return Stop(ERROR, f"the process running your code sent the grader something it never asks "
                       f"for: {why}. Code that writes to the grader's channels, or changes the "
                       "grader's modules, does this.")
