"""What a runner sends its decider: one JSON record a line, each kind a frozen dataclass here.

The runner builds every record from its dataclass (``record()``); the decider reads every
line through ``decode``, the one place that checks them. A line may have been written by the
learner's code, so each field is checked for its type and bounded in size, and anything else
raises ``ProtocolError`` saying what was wrong and what was expected. The values the
learner's code gave stay in ``grader.wire``'s encoding until the replay decodes them.

=========================================================================  ================
record                                                                      message
=========================================================================  ================
``{"start": id, "output_at": n}``                                            ``Start``
``{"load_error": {"kind": …, "message": …, …}}``                             ``LoadError``
``{"function": name, "where": text, "value": v}``                            ``FunctionAnswer``
``{"call": i, "digest": d, "observed": {...}, "result": v}`` or ``"stop"``   ``CallAnswer``
``{"observer": i, "entry": e}``                                              ``ObserverEntry``
``{"crashed": traceback}``                                                   ``Crashed``
``{"end": id, "output_at": n, "reference_opened": [path, …]}``               ``End``
=========================================================================  ================

``output_at`` is the byte offset of the runner's output (its standard output and error,
one file) when the record was sent: where the exercise's printed text starts and ends.

A warm runner's zygote (grader/runner/zygote.py) says two things on its control socket,
read through ``zygote_message``: ``{"ready": true}`` (``Ready``) and ``{"exited": code}``
(``Exited``).
"""
import math
from dataclasses import asdict, dataclass, field, fields

from grader.verdict import Finding, FindingKind, LoadErrorKind, Status

MAX_OFFSET = 2**62  # output_at: a byte offset of a file
MAX_TEXT = 20_000  # characters of a traceback, a summary or a place the runner names
MAX_LOAD_ERROR_TEXT = 5000  # characters of each of a load error's values
LOAD_ERROR_KINDS = tuple(kind.value for kind in LoadErrorKind)  # what a load error's record may say it is
MAX_PATHS, MAX_PATH = 20, 300  # the reference files a runner reports opening, and their length
MAX_FINDINGS = 200
FINDING_TEXT_LIMITS = {"name": 500, "case": 500, "message": 5000, "hint": 5000}
MAX_TABLE_ROWS, MAX_TABLE_COLUMNS, MAX_CELL = 100, 20, 300
MAX_HINT_LEVELS = 4
STOP_STATUSES = (Status.ERROR, Status.FAILED, Status.NOT_STARTED)  # what a runner's Stop may say: never a pass


class ProtocolError(ValueError):
    """A record from the runner that the protocol does not allow; the message says what was
    wrong and what was expected."""


@dataclass(frozen=True)
class Start:
    """The runner starts the check of ``exercise``."""
    exercise: str
    output_at: int

    def record(self) -> dict:
        return {"start": self.exercise, "output_at": self.output_at}


@dataclass(frozen=True)
class End:
    """The runner ended the check of ``exercise``; ``reference_opened``: the course's reference
    or check files its process reports opening meanwhile (a report, not a proof)."""
    exercise: str
    output_at: int
    reference_opened: tuple[str, ...] = ()

    def record(self) -> dict:
        return {"end": self.exercise, "reference_opened": list(self.reference_opened), "output_at": self.output_at}


@dataclass(frozen=True)
class LoadError:
    """Importing the implementation failed: ``kind`` SYNTAX (with ``file``, ``line`` and
    ``message``), MISSING (``message``: no implementation found) or RAISED (``message``, the
    learner's ``frame`` and the ``traceback``); its value ("syntax") is given for it too. Each
    other value is text, None where absent: ``verdict.load_error_verdict`` words it."""
    kind: LoadErrorKind
    message: str | None = None
    file: str | None = None
    line: str | None = None
    frame: str | None = None
    traceback: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", LoadErrorKind(self.kind))  # "syntax" becomes its member; else ValueError

    def record(self) -> dict:
        return {"load_error": {k: v for k, v in asdict(self).items() if v is not None}}


@dataclass(frozen=True)
class FunctionAnswer:
    """The implementation's ``name``, looked up in the module at ``where``: its wire encoding,
    None when it does not define it."""
    name: str
    where: str
    value: object

    def record(self) -> dict:
        return {"function": self.name, "where": self.where, "value": self.value}


@dataclass(frozen=True)
class StopRecord:
    """A check stopped in the runner (``harness.Stop``): a status, never a pass, with its findings."""
    status: Status
    summary: str
    traceback: str = ""
    findings: tuple[Finding, ...] = ()

    def record(self) -> dict:
        return {"status": Status(self.status).value, "summary": self.summary, "traceback": self.traceback,
                "findings": [asdict(f) for f in self.findings]}


@dataclass(frozen=True)
class CallAnswer:
    """What call number ``index`` of the learner's code gave: its ``result`` (wire encoding) or
    the ``stop`` it ended the check with; ``digest`` names its arguments (``wire.digest``);
    ``observed``: {observer index (text): state} of the observers whose state changed."""
    index: int
    digest: str
    observed: dict = field(default_factory=dict)
    result: object = None
    stop: StopRecord | None = None

    def record(self) -> dict:
        answer = {"stop": self.stop.record()} if self.stop is not None else {"result": self.result}
        return {"call": self.index, "digest": self.digest, "observed": self.observed, **answer}


@dataclass(frozen=True)
class ObserverEntry:
    """An entry of a streamed observer's log, sent the moment it was made (its observer checks
    the entry: ``observation.Observation.add_entry``)."""
    observer: int
    entry: object

    def record(self) -> dict:
        return {"observer": self.observer, "entry": self.entry}


@dataclass(frozen=True)
class Crashed:
    """The check's own code raised in the runner, handed an object that breaks it."""
    traceback: str

    def record(self) -> dict:
        return {"crashed": self.traceback}


@dataclass(frozen=True)
class Ready:
    """The zygote can fork the next child."""

    def record(self) -> dict:
        return {"ready": True}


@dataclass(frozen=True)
class Exited:
    """The zygote's child ended: its exit code, or 128 + the signal that killed it."""
    code: int

    def record(self) -> dict:
        return {"exited": self.code}


def zygote_message(record) -> Ready | Exited:
    """What the zygote said; raises ProtocolError for anything but ``{"ready": true}`` or
    ``{"exited": code}`` with a code of 0 to 255."""
    if type(record) is dict and len(record) == 1:
        (word, value), = record.items()
        if word == "ready" and value is True:
            return Ready()
        if word == "exited" and type(value) is int and 0 <= value <= 255:
            return Exited(value)
    raise ProtocolError(f'expected {{"ready": true}} or {{"exited": code}} from the zygote, got {str(record)[:120]}')


Message = Start | End | LoadError | FunctionAnswer | CallAnswer | ObserverEntry | Crashed
ANSWERS = (FunctionAnswer, CallAnswer, End)  # what answers one of the decider's requests, or ends the check


def decode(record) -> Message:
    """The message a runner's record (parsed JSON) carries, every field checked; raises
    ProtocolError otherwise. A record names its kind by a key (module docstring); where a
    forged one holds several, the first of entry, crashed, load_error, start, end, function,
    call counts."""
    if type(record) is not dict:
        raise ProtocolError(f"expected a record (a JSON object), got {str(record)[:120]}")
    if "entry" in record:
        return _entry(record)
    if "crashed" in record:
        return Crashed(_text(record["crashed"]))
    if "load_error" in record:
        return load_error(record["load_error"])
    for key, decoder in (("start", _start), ("end", _end), ("function", _function), ("call", _call)):
        if key in record:
            return decoder(record)
    raise ProtocolError(f"expected a record of the runner's protocol, got {str(record)[:120]}")


def _keys(record: dict, required: set[str], optional: set[str] | frozenset[str] = frozenset(),
          what: str = "a record") -> None:
    if not required <= set(record) or set(record) - required - optional:
        raise ProtocolError(f"{what} must have the fields {sorted(required)}"
                            f"{f' and may have {sorted(optional)}' if optional else ''}, got {sorted(map(str, record))[:10]}")


def _offset(value, what: str) -> int:
    if type(value) is not int or not 0 <= value < MAX_OFFSET:
        raise ProtocolError(f"{what}'s output_at is not a byte offset")
    return value


def _name(value, what: str) -> str:
    if type(value) is not str:
        raise ProtocolError(f"{what} does not name its exercise or function with text")
    return value[:MAX_TEXT]


def _text(value) -> str:
    """Text cut to MAX_TEXT; anything else reads as no text."""
    return value[:MAX_TEXT] if type(value) is str else ""


def _start(record: dict) -> Start:
    _keys(record, {"start", "output_at"}, what="a start record")
    return Start(_name(record["start"], "a start record"), _offset(record["output_at"], "a start record"))


def _end(record: dict) -> End:
    _keys(record, {"end", "output_at"}, {"reference_opened"}, what="an end record")
    reported = record.get("reference_opened")  # a report: what is not a short path is left out
    paths = [p[:MAX_PATH] for p in reported if type(p) is str][:MAX_PATHS] if type(reported) is list else []
    return End(_name(record["end"], "an end record"), _offset(record["output_at"], "an end record"), tuple(paths))


def load_error(data) -> LoadError:
    """The LoadError a record's ``load_error`` describes, whoever made it. Its ``kind`` decides
    the verdict's wording, so it must be one of LOAD_ERROR_KINDS (ProtocolError otherwise); a
    forged one's other values are cut to text, the rest dropped."""
    if type(data) is not dict:
        raise ProtocolError(f"a load error must be a record (a JSON object), got {str(data)[:60]!r}")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in LOAD_ERROR_KINDS:
        raise ProtocolError(f"a load error's kind must be one of {list(LOAD_ERROR_KINDS)}, got {str(kind)[:60]!r}")
    return LoadError(LoadErrorKind(kind), **{f.name: str(data[f.name])[:MAX_LOAD_ERROR_TEXT]
                                             for f in fields(LoadError) if f.name in data and f.name != "kind"})


def _function(record: dict) -> FunctionAnswer:
    _keys(record, {"function", "where", "value"}, what="a function record")
    if type(record["where"]) is not str:
        raise ProtocolError("a function record's where is not text")
    return FunctionAnswer(_name(record["function"], "a function record"), record["where"][:MAX_TEXT], record["value"])


def _call(record: dict) -> CallAnswer:
    _keys(record, {"call", "digest"}, {"observed", "result", "stop"}, what="a call record")
    index, digest, observed = record["call"], record["digest"], record.get("observed", {})
    if type(index) is not int or index < 0:
        raise ProtocolError("a call record's index is not a count")
    if type(digest) is not str or len(digest) > 64:
        raise ProtocolError("a call record's digest is not a short text")
    if type(observed) is not dict:
        raise ProtocolError("a call record's observed states are not a record")
    if ("result" in record) == ("stop" in record):
        raise ProtocolError(f"call {index} has no result" if "result" not in record
                            else f"call {index} has both a result and a stop")
    if "stop" in record:
        return CallAnswer(index, digest, observed, stop=stop_record(record["stop"]))
    return CallAnswer(index, digest, observed, result=record["result"])


def _entry(record: dict) -> ObserverEntry:
    _keys(record, {"observer", "entry"}, what="an observer's entry record")
    if type(record["observer"]) is not int:
        raise ProtocolError(f"an observer's entry is malformed (observer {str(record['observer'])[:40]} is not an index)")
    return ObserverEntry(record["observer"], record["entry"])


def stop_record(data) -> StopRecord:
    """A runner's Stop, every field checked: a status of STOP_STATUSES, text, at most
    MAX_FINDINGS findings (``finding``)."""
    try:
        if type(data) is not dict:
            raise ValueError("not a record")
        if data["status"] not in STOP_STATUSES:
            raise ValueError(f"status {data['status']!r}")
        if type(data["findings"]) is not list or len(data["findings"]) > MAX_FINDINGS:
            raise ValueError(f"findings are not a list of at most {MAX_FINDINGS}")
        findings = tuple(finding(f) for f in data["findings"])
        return StopRecord(Status(data["status"]), _text(data.get("summary")), _text(data.get("traceback")), findings)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProtocolError(f"a Stop is malformed ({exc})") from None


def finding(data) -> Finding:
    """A Finding from a runner's record, every field checked: text where text is expected
    (cut to its limit), a FindingKind, a table of at most MAX_TABLE_ROWS rows of as many short
    strings, a finite statistic, a p-value in [0, 1], a count of draws. Raises ValueError
    otherwise."""
    if type(data) is not dict or not set(data) <= {f.name for f in fields(Finding)} or \
            not {"name", "kind", "message"} <= set(data):
        raise ValueError("a finding is not a record of a property's name, its kind, a message and "
                         "Finding's other fields")
    if data["kind"] not in tuple(FindingKind):
        raise ValueError(f"a finding's kind is not one of {tuple(k.value for k in FindingKind)}")
    text = {}
    for name, limit in FINDING_TEXT_LIMITS.items():
        value = data.get(name, "")
        if type(value) is not str:
            raise ValueError(f"a finding's {name} is not text")
        text[name] = value[:limit]
    more = data.get("more_hints", [])
    if type(more) is not list or len(more) > MAX_HINT_LEVELS or any(type(h) is not str for h in more):
        raise ValueError(f"a finding's more_hints are not a list of at most {MAX_HINT_LEVELS} texts")
    return Finding(**text, kind=FindingKind(data["kind"]), table=_table(data.get("table")),
                   statistic=_number(data.get("statistic"), "statistic"),
                   p_value=_number(data.get("p_value"), "p_value", 0.0, 1.0),
                   draws=_count(data.get("draws")), more_hints=[h[:FINDING_TEXT_LIMITS["hint"]] for h in more])


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
