"""What checks observe of the learner's code while it runs, carried from the runner to the decider.

A check that grades for real runs twice: in the runner, the process that runs the
learner's code, and in the decider, which never runs it and decides the verdict
(grader/decider/). Some check objects watch the learner's code from inside: a model
wrapper records what each forward was fed, a counter counts host reads. They subclass
``Observer``. Both processes create them in the same order (the same check code), so an
observer is known by its creation index. In the runner, after each learner call, the
state of every observer that changed during it is sent with the call's result; in the
decider, the same observers take that state instead of watching anything.

An observer that keeps a log (``streamed``: the recording models' forwards) sends each
entry the moment it is made, during the learner's call, and the decider builds its log
from those entries alone: code that rewrites the log afterwards changes nothing the
decider sees. (Code that replaces the grader's methods can still forge what is observed
in its process, which is why such properties are labelled "observed".)

Modes: ``direct`` (one process, the tests and ``grader.selftest.in_process``), ``record``
(the runner) and ``replay`` (the decider). Outside a check everything is ``direct``.
"""
import json
import weakref
from contextlib import contextmanager

DIRECT, RECORD, REPLAY = "direct", "record", "replay"


class _State:
    def __init__(self, mode: str = DIRECT, in_check: bool = False):
        self.mode, self.in_check = mode, in_check
        self.in_call = False
        self.observers: list[weakref.ref] = []
        self.sent: dict[int, str] = {}  # index -> the state last sent or restored, as JSON
        self.send_entry = None  # in record mode: sends one streamed observer's entry


_state = _State()


class Observer:
    """A check object that watches the learner's code; subclasses give their state as
    plain data (``observed_state``) and take it back (``restore``). A ``streamed`` one
    instead adds each entry of its log with ``add`` (plain data), which sends it."""

    streamed = False

    def __init__(self):
        self.observer_index = len(_state.observers)
        _state.observers.append(weakref.ref(self))

    def observed_state(self):
        raise NotImplementedError

    def restore(self, state) -> None:
        raise NotImplementedError

    def add(self, entry) -> None:
        """Append ``entry`` to the log (a streamed observer's own ``append``), and send it
        when the learner's code made it in the runner."""
        self.append(entry)
        if _state.mode == RECORD and _state.in_call and _state.send_entry is not None:
            _state.send_entry({"observer": self.observer_index, "entry": entry})

    def append(self, entry) -> None:
        raise NotImplementedError


def watching() -> bool:
    """Whether observers should count what happens now: during a learner call, or outside
    any check (a benchmark, a test using a counter directly); never in the decider."""
    if _state.mode == REPLAY:
        return False
    return _state.in_call or not _state.in_check


@contextmanager
def check_scope(mode: str):
    """A check run: observers are numbered from 0, in ``mode``."""
    saved = _state.__dict__.copy()
    _state.__init__(mode, in_check=True)
    try:
        yield
    finally:
        _state.__dict__.clear()
        _state.__dict__.update(saved)


def mode() -> str:
    return _state.mode


@contextmanager
def learner_call():
    """Around one call of the learner's code (direct and record modes)."""
    _state.in_call = True
    try:
        yield
    finally:
        _state.in_call = False


def send_entries_to(send) -> None:
    """In the runner: where streamed observers send their entries (one JSON-able message each)."""
    _state.send_entry = send


def changed_states() -> dict[int, object]:
    """{index: state} of the observers whose state differs from the last one sent
    (streamed observers sent theirs already, entry by entry)."""
    changed = {}
    for index, ref in enumerate(_state.observers):
        observer = ref()
        if observer is None or observer.streamed:
            continue
        state = observer.observed_state()
        text = json.dumps(state, sort_keys=True)
        if _state.sent.get(index) != text:
            _state.sent[index] = text
            changed[index] = state
    return changed


def count(state) -> int:
    """A count a runner sent as an observer's state, checked: a non-negative int."""
    if type(state) is not int or not 0 <= state < 2**53:
        raise ValueError(f"an observed count is {type(state).__name__}, not a non-negative int")
    return state


def ints(values, name: str) -> list[int]:
    """A list of ints a runner sent in an observer's entry, checked."""
    if type(values) is not list or not all(type(v) is int for v in values):
        raise ValueError(f"an observed {name} is not a list of ints")
    return values


def restore_states(states: dict) -> None:
    """Give the decider's observers the states the runner sent (index as a string key)."""
    for key, state in states.items():
        observer = _observer(int(key))
        if observer.streamed:
            raise ValueError(f"a whole state for observer {key}, which sends entries one by one")
        observer.restore(state)
        _state.sent[int(key)] = json.dumps(state, sort_keys=True)


def add_entry(message: dict) -> None:
    """Give the decider's streamed observer the entry the runner sent."""
    observer = _observer(message["observer"])
    if not observer.streamed:
        raise ValueError(f"an entry for observer {message['observer']}, which sends no entries")
    observer.append(message["entry"])


def _observer(index) -> Observer:
    alive = type(index) is int and 0 <= index < len(_state.observers)
    observer = _state.observers[index]() if alive else None
    if observer is None:
        raise ValueError(f"a state for observer {index}, which this check never created")
    return observer
