"""What checks observe of the learner's code while it runs, carried from the runner to the decider.

A check that grades for real runs twice: in the runner, the process that runs the
learner's code, and in the decider, which never runs it and decides the verdict
(grader/decider/). Some check objects watch the learner's code from inside: a model
wrapper records what each forward was fed, a counter counts host reads. They subclass
``Observer``. In the runner, after each learner call, the state of every observer that
changed during it is sent with the call's result; in the decider, the same observers take
that state instead of watching anything.

Observers register on the run. Each check run owns an ``Observation`` (``check.observation``,
made by the harness: grader/checks/harness.py, the runner's ``RecordingCheckRun``, the
decider's ``ReplayCheckRun``): its mode, its observers in creation order, what was sent of
each. The check hands it to every observer it creates (``RecordingModel(model,
check.observation)``), and the observer numbers itself there: both processes run the same
check code, so an observer is known by its creation index in its run. Handing the run over
is one argument at each of the checks' few creation sites, and it leaves no state outside
the run: nothing to save and restore around a check, and an observer made with no run (a
benchmark, a test, a judge tracing the reference loop in the decider) is numbered nowhere,
watches everything, and sends nothing. (A run found through a global or a context variable
would spare that argument, but an observer would then join whichever run was current where
it was made: a judge's wrappers would take numbers of the check's observers.)

An observer that keeps a log (``streamed``: the recording models' forwards) sends each
entry the moment it is made, during the learner's call, and the decider builds its log
from those entries alone: code that rewrites the log afterwards changes nothing the
decider sees. (Code that replaces the grader's methods can still forge what is observed
in its process, which is why such properties are labelled "observed".)

Modes: ``direct`` (one process, the tests and ``grader.studies.in_process``), ``record``
(the runner) and ``replay`` (the decider).
"""
import json
import weakref
from contextlib import contextmanager

DIRECT, RECORD, REPLAY = "direct", "record", "replay"
MAX_ENTRIES = 100_000  # streamed entries one check run takes: the reference's most, 1,972 (tree_generate)
MAX_ENTRY_BYTES = 16 * 2**20  # and their JSON: the reference's most, 363 KB (tree_generate)


class Observation:
    """The observers of one check run, in ``mode``; in record mode ``send`` takes each
    streamed observer's entry (one JSON-able message)."""

    def __init__(self, mode: str = DIRECT, send=None):
        self.mode, self.send = mode, send
        self.in_call = False
        self.observers: list[weakref.ref] = []  # in creation order: an observer's index is its name
        self.sent: dict[int, str] = {}  # index -> the state last sent or restored, as JSON
        self.entries, self.entry_bytes = 0, 0  # taken by ``add_entry``

    def register(self, observer: "Observer") -> int:
        """Number ``observer``, the next one this run's check created."""
        self.observers.append(weakref.ref(observer))
        return len(self.observers) - 1

    @contextmanager
    def learner_call(self):
        """Around one call of the learner's code (direct and record modes)."""
        self.in_call = True
        try:
            yield
        finally:
            self.in_call = False

    def watching(self) -> bool:
        """Whether this run's observers count what happens now: during a learner call,
        never in the decider."""
        return self.in_call and self.mode != REPLAY

    def changed_states(self) -> dict[int, object]:
        """{index: state} of the observers whose state differs from the last one sent
        (streamed observers sent theirs already, entry by entry)."""
        changed = {}
        for index, ref in enumerate(self.observers):
            observer = ref()
            if observer is None or observer.streamed:
                continue
            state = observer.observed_state()
            text = json.dumps(state, sort_keys=True)
            if self.sent.get(index) != text:
                self.sent[index] = text
                changed[index] = state
        return changed

    def restore_states(self, states: dict) -> None:
        """Give the decider's observers the states the runner sent (index as a string key)."""
        for key, state in states.items():
            observer = self._observer(int(key))
            if observer.streamed:
                raise ValueError(f"a whole state for observer {key}, which sends entries one by one")
            observer.restore(state)
            self.sent[int(key)] = json.dumps(state, sort_keys=True)

    def add_entry(self, message: dict) -> None:
        """Give the decider's streamed observer the entry the runner sent; ValueError past
        MAX_ENTRIES entries or MAX_ENTRY_BYTES of them in this run (the decider keeps them)."""
        self.entries += 1
        self.entry_bytes += len(json.dumps(message, separators=(",", ":")))
        if self.entries > MAX_ENTRIES or self.entry_bytes > MAX_ENTRY_BYTES:
            raise ValueError(f"more than {MAX_ENTRIES} entries or {MAX_ENTRY_BYTES // 2**20} MB of them in "
                             "one check, far more than any correct code makes")
        observer = self._observer(message["observer"])
        if not observer.streamed:
            raise ValueError(f"an entry for observer {message['observer']}, which sends no entries")
        observer.append(message["entry"])

    def _observer(self, index) -> "Observer":
        alive = type(index) is int and 0 <= index < len(self.observers)
        observer = self.observers[index]() if alive else None
        if observer is None:
            raise ValueError(f"a state for observer {index}, which this check never created")
        return observer


class Observer:
    """A check object that watches the learner's code, registered on ``run``, the
    ``Observation`` of its check's run (None outside a check); subclasses give their state
    as plain data (``observed_state``) and take it back (``restore``). A ``streamed`` one
    instead adds each entry of its log with ``add`` (plain data), which sends it."""

    streamed = False

    def __init__(self, run: Observation | None = None):
        self.observation = run
        self.observer_index = None if run is None else run.register(self)

    def watching(self) -> bool:
        """Whether to count what happens now: always outside a check; inside one, as its
        run says (during the learner's calls, never in the decider)."""
        return self.observation is None or self.observation.watching()

    def observed_state(self):
        raise NotImplementedError

    def restore(self, state) -> None:
        raise NotImplementedError

    def add(self, entry) -> None:
        """Append ``entry`` to the log (a streamed observer's own ``append``), and send it
        when the learner's code made it in the runner."""
        self.append(entry)
        run = self.observation
        if run is not None and run.mode == RECORD and run.in_call:
            run.send({"observer": self.observer_index, "entry": entry})

    def append(self, entry) -> None:
        raise NotImplementedError


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
