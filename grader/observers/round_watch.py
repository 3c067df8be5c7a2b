"""What a lesson-11 loop did around its forwards: where its distributions came from, and
whether it went on without advancing.

``RoundWatch`` watches one loop call at a time (``with watch.watching(target, head):``)
and logs, in order (streamed to the decider, each entry checked by ``entry``):

- ``["target", fed]``: a forward of the target, fed ``fed`` tokens;
- ``["q", row, rows]``: the wrapped processor (``watch.processor(p)``) called on row ``row``
  of the ``rows`` the head's LM head gave last (a draft's q);
- ``["p", rows, of]``: the processor called on ``rows`` consecutive rows of the ``of`` the
  target gave last (the target's p);
- ``["stuck", reads, forwards]``: ``reads`` tensor indexings since the last forward of either
  model, after ``forwards`` target forwards: the loop stopped advancing, and ``LoopStuck``
  was raised in it so that it ends now, not at the check's time limit.

``watch.stall_guard(target, head)`` watches sampled runs, many calls of them, for the same
stop at no cost per tensor operation (the mode above slows a loop by about 60%): a CPU-time
timer ticks every STALL_TICK seconds of the process's CPU, and a tick that finds STALL_CPU
seconds spent in a learner call since the last forward of either model logs
``["stalled", milliseconds]`` and raises ``LoopStuck`` there. It relies on the
process's SIGPROF (where it cannot have it, not in the main thread, a stall runs to the
check's time limit as before).

Matching is by equal values: a processor fed a copy in another dtype matches nothing, and
nothing is logged for it (the judges name a bug from what was logged, never from its absence
alone unless every round logged nothing).
"""
import signal
import time

import torch
from torch.overrides import TorchFunctionMode

from grader.observers import observation
from grader.observers.observation import REPLAY, Observer

STUCK_READS = 10_000  # tensor indexings between two forwards: a walk of a 16-node tree makes tens
STALL_CPU = 2.0  # CPU seconds in a learner call without a forward: a sampled round takes milliseconds
STALL_TICK = 0.25  # CPU seconds between the stall guard's looks
KINDS = {"target": 1, "q": 2, "p": 2, "stuck": 2, "stalled": 1}  # entry kind -> how many counts follow it


class LoopStuck(RuntimeError):
    """Raised inside the learner's loop when it indexes tensors STUCK_READS times without a forward."""


def entry(value) -> list:
    """A runner's entry, checked: a known kind and its non-negative counts (ValueError otherwise)."""
    if type(value) is not list or not value or value[0] not in KINDS or len(value) != 1 + KINDS[value[0]]:
        raise ValueError("an observed loop event is not one of target, q, p, stuck, stalled with its counts")
    return [value[0]] + [observation.count(v) for v in value[1:]]


class RoundWatch(TorchFunctionMode, Observer):
    """The log of ``entries`` above, for the loop calls made inside ``watching``."""

    streamed = True

    def __init__(self, run: observation.Observation | None = None):
        TorchFunctionMode.__init__(self)
        Observer.__init__(self, run)
        self.entries: list[list] = []
        self.head_logits = self.target_logits = None  # the last logits each gave, [rows, V]
        self.in_target, self.reads, self.forwards = False, 0, 0

    def append(self, value) -> None:
        self.entries.append(entry(value))

    def processor(self, processor) -> "WatchedProcessor":
        return WatchedProcessor(processor, self)

    def watching_call(self, target, head):
        """A context for one loop call: hooks on ``target`` (an nn.Module) and on the head's
        decoder and LM head, and this mode, all gone after it."""
        return _Watching(self, target, head)

    def stall_guard(self, target, head):
        """A context for any number of loop calls (sampled runs): ends a call that spends
        STALL_CPU seconds of CPU without a forward of ``target`` or ``head.decoder``."""
        return _StallGuard(self, target, head)

    # --- hooks ------------------------------------------------------------------------
    def _target_starts(self, module, args, kwargs) -> None:
        if self.watching():
            ids = kwargs.get("input_ids", args[0] if args else None)
            fed = ids.shape[-1] if isinstance(ids, torch.Tensor) and ids.dim() > 0 else 0
            self.forwards += 1
            self.add(["target", fed])
        self.in_target, self.reads = True, 0

    def _target_ends(self, module, args, kwargs, output) -> None:
        self.in_target = False
        logits = getattr(output, "logits", None)
        if isinstance(logits, torch.Tensor) and logits.dim() >= 1:
            self.target_logits = logits.detach().reshape(-1, logits.shape[-1])

    def _head_starts(self, module, args, kwargs) -> None:
        self.reads = 0

    def _lm_head_ends(self, module, args, output) -> None:
        if not self.in_target and isinstance(output, torch.Tensor) and output.dim() >= 1:
            self.head_logits = output.detach().reshape(-1, output.shape[-1])

    def source(self, logits) -> None:
        """Log where the processor's input came from (see the module's docstring)."""
        if not (self.watching() and isinstance(logits, torch.Tensor) and logits.dim() >= 1):
            return
        with torch._C.DisableTorchFunction():  # the grader's own reads are not the loop's
            rows = logits.detach().reshape(-1, logits.shape[-1])
            head, target = self.head_logits, self.target_logits
            if logits.dim() == 1 and head is not None and head.shape[-1] == rows.shape[-1]:
                found = [i for i in range(head.shape[0]) if torch.equal(head[i], rows[0])]
                if found:  # the last equal row: a bug is named only when no later row fits
                    self.add(["q", found[-1], head.shape[0]])
                    return
            if target is not None and target.shape[-1] == rows.shape[-1] and rows.shape[0] <= target.shape[0]:
                starts = range(target.shape[0] - rows.shape[0] + 1)
                if any(torch.equal(target[s:s + rows.shape[0]], rows) for s in starts):
                    self.add(["p", rows.shape[0], target.shape[0]])

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__getitem__ and self.watching():
            self.reads += 1
            if self.reads == STUCK_READS:
                self.add(["stuck", self.reads, self.forwards])
                raise LoopStuck(f"{self.reads} tensor indexings since the last forward, which was the target's "
                                f"forward {self.forwards}: the grader stopped a loop that no longer advanced")
        return func(*args, **(kwargs or {}))


class _Watching:
    def __init__(self, watch: RoundWatch, target, head):
        self.watch, self.target, self.head, self.handles = watch, target, head, []

    def __enter__(self):
        w = self.watch
        w.head_logits = w.target_logits = None
        w.in_target, w.reads, w.forwards = False, 0, 0
        self.handles = [self.target.register_forward_pre_hook(w._target_starts, with_kwargs=True),
                        self.target.register_forward_hook(w._target_ends, with_kwargs=True),
                        self.head.decoder.register_forward_pre_hook(w._head_starts, with_kwargs=True),
                        self.head.lm_head.register_forward_hook(w._lm_head_ends)]
        w.__enter__()
        return w

    def __exit__(self, *exc) -> None:
        self.watch.__exit__(*exc)
        for handle in self.handles:
            handle.remove()
        self.watch.head_logits = self.watch.target_logits = None


class _StallGuard:
    def __init__(self, watch: RoundWatch, target, head):
        self.watch, self.target, self.head, self.handles = watch, target, head, []
        self.last, self.previous, self.armed = 0.0, None, False

    def __enter__(self):
        self.last = time.process_time()
        self.handles = [self.target.register_forward_pre_hook(self._forward),
                        self.head.decoder.register_forward_pre_hook(self._forward)]
        run = self.watch.observation
        if run is None or run.mode != REPLAY:  # the decider runs no learner code: nothing to stop
            try:
                self.previous = signal.signal(signal.SIGPROF, self._tick)
                signal.setitimer(signal.ITIMER_PROF, STALL_TICK, STALL_TICK)
                self.armed = True
            except (ValueError, OSError):  # not the main thread: a stall runs to the check's limit
                pass
        return self.watch

    def __exit__(self, *exc) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_PROF, 0, 0)
            signal.signal(signal.SIGPROF, self.previous)
        for handle in self.handles:
            handle.remove()

    def _forward(self, module, args) -> None:
        self.last = time.process_time()

    def _tick(self, signum, frame) -> None:
        now = time.process_time()
        if not self.watch.watching():  # the grader's own time between calls counts for nothing
            self.last = now
        elif now - self.last >= STALL_CPU:
            spent, self.last = now - self.last, now
            self.watch.add(["stalled", int(spent * 1000)])
            raise LoopStuck(f"{spent:.1f} s of CPU since the last forward of either model: the grader stopped "
                            "a loop that no longer advanced")


class WatchedProcessor:
    """A logits processor that behaves as ``processor`` and tells ``watch`` what it was fed."""

    def __init__(self, processor, watch: RoundWatch):
        self._processor, self._watch = processor, watch

    def __call__(self, logits, *args, **kwargs):
        self._watch.source(logits)
        return self._processor(logits, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._processor, name)

    def __repr__(self) -> str:
        return repr(self._processor)
