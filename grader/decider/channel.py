"""The runner's pipe, read one JSON record (a line) at a time, each awaited until a deadline."""
import json
import os
import selectors
import time
from collections import deque

STARTUP_TIMEOUT = 60.0  # importing torch and transformers in a fresh process
MAX_LINE_BYTES = 256 * 2**20  # one record: larger is a flood, not an answer
WATCH_SECONDS = 0.25  # how often ``watch`` runs while records are awaited or read


class RunnerTimeout(Exception):
    """The runner sent nothing before the deadline."""


class RunnerGone(Exception):
    """The runner closed its channel (it exited, crashed or was killed)."""


class RunnerOverLimit(RunnerGone):
    """The runner went past a limit the decider watches; the message says which, worded for
    the learner."""


class Channel:
    """JSON records from the runner's pipe, one per line, each awaited until ``deadline``.
    ``watch()``, if given, runs every WATCH_SECONDS while records are awaited or read, and
    raises RunnerOverLimit to stop the runner. Each byte is read and searched for the end
    of its line once, however long the line (linear in what the runner sends)."""

    def __init__(self, fd: int, watch=None):
        self.fd, self.watch = fd, watch
        self.partial: list[bytes] = []  # the pieces of the line being read, its end not yet seen
        self.partial_bytes = 0
        self.lines: deque[bytes] = deque()
        self.peeked = []
        self.deadline = time.monotonic() + STARTUP_TIMEOUT
        self.watched = time.monotonic()
        self.selector = selectors.DefaultSelector()
        self.selector.register(fd, selectors.EVENT_READ)

    def peek(self):
        """The next record, left to be received."""
        if not self.peeked:
            self.peeked.append(self.receive())
        return self.peeked[0]

    def receive(self):
        if self.peeked:
            return self.peeked.pop()
        self._watch()
        while not self.lines:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not self.selector.select(min(remaining, WATCH_SECONDS)):
                if time.monotonic() >= self.deadline:
                    raise RunnerTimeout()
                self._watch()
                continue
            try:
                chunk = os.read(self.fd, 1 << 20)
            except ConnectionResetError:  # a socket (a warm runner's control) whose end closed unread
                chunk = b""
            if not chunk:
                raise RunnerGone()
            self._split(chunk)
        line = self.lines.popleft()
        try:
            return json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            return {"malformed": line[:120].decode(errors="replace")}

    def _split(self, chunk: bytes) -> None:
        """The complete lines of ``chunk`` (the first joined to what came before it) queued,
        its unfinished tail kept; raises RunnerGone past MAX_LINE_BYTES in one line."""
        *ended, tail = chunk.split(b"\n")
        if ended:
            self.lines.append(b"".join([*self.partial, ended[0]]))
            self.lines.extend(ended[1:])
            self.partial, self.partial_bytes = [], 0
        if tail:
            self.partial.append(tail)
            self.partial_bytes += len(tail)
        if self.partial_bytes > MAX_LINE_BYTES:
            raise RunnerGone()

    def _watch(self) -> None:
        if self.watch is not None and time.monotonic() - self.watched >= WATCH_SECONDS:
            self.watched = time.monotonic()
            self.watch()

    def close(self) -> None:
        self.selector.close()
        os.close(self.fd)
