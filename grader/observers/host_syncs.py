"""Count the host syncs a loop makes outside its models' forwards.

On a GPU every read of a tensor's value on the host (``.item()``, ``.tolist()``, ``if
tensor:``, ``int(tensor)``...) waits for the device to finish its queue; a loop that reads
once per draft instead of once per round loses the overlap that makes it fast. On a CPU
nothing waits, so they are counted instead: the Python calls that read a tensor on the
host, made while no model forward is running (what a model does inside is its own).
"""
import torch
from torch.overrides import TorchFunctionMode

from grader.observers import observation

READS = ("item", "tolist", "__bool__", "__int__", "__float__", "__index__", "cpu", "numpy")


class HostSyncCounter(observation.Observer):
    """``with HostSyncCounter() as syncs:`` counts host reads in ``syncs.count``; models
    wrapped with ``syncs.uncounted(model)`` read freely inside their forwards. Made with a
    check's run (``HostSyncCounter(check.observation)``), it counts only the learner's calls
    (grader/observers/observation.py)."""

    def __init__(self, run: observation.Observation | None = None):
        super().__init__(run)
        self.count, self.depth, self.saved = 0, 0, {}

    def observed_state(self):
        return self.count

    def restore(self, state) -> None:
        self.count = observation.count(state)

    def __enter__(self) -> "HostSyncCounter":
        for name in READS:
            self.saved[name] = getattr(torch.Tensor, name)
            setattr(torch.Tensor, name, self._counting(self.saved[name]))
        return self

    def __exit__(self, *exc) -> None:
        for name, method in self.saved.items():
            setattr(torch.Tensor, name, method)

    def _counting(self, original):
        def read(tensor, *args, **kwargs):
            self.count += self.depth == 0 and self.watching()
            return original(tensor, *args, **kwargs)
        return read

    def uncounted(self, model) -> "Uncounted":
        return Uncounted(model, self)


class Uncounted:
    """A model whose forwards' host reads are not counted; otherwise the model itself."""

    def __init__(self, model, counter: HostSyncCounter):
        self.model, self.counter, self.forwards = model, counter, 0

    def __call__(self, *args, **kwargs):
        self.forwards += 1
        self.counter.depth += 1
        try:
            return self.model(*args, **kwargs)
        finally:
            self.counter.depth -= 1

    def forward(self, *args, **kwargs):
        return self(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.model, name)


class TorchCalls(TorchFunctionMode, observation.Observer):
    """``with TorchCalls() as calls:`` counts the torch functions and tensor methods called
    (``calls.count``): a loop over a batch's rows makes more of them as the batch grows;
    ``run`` as for HostSyncCounter."""

    def __init__(self, run: observation.Observation | None = None):
        TorchFunctionMode.__init__(self)
        observation.Observer.__init__(self, run)
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.count += self.watching()
        return func(*args, **(kwargs or {}))

    def observed_state(self):
        return self.count

    def restore(self, state) -> None:
        self.count = observation.count(state)
