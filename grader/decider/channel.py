"""The runner's pipe, read one JSON record (a line) at a time, each awaited until a deadline."""
import json
import os
import selectors
import time

STARTUP_TIMEOUT = 60.0  # importing torch and transformers in a fresh process
MAX_LINE_BYTES = 256 * 2**20  # one record: larger is a flood, not an answer


class RunnerTimeout(Exception):
    """The runner sent nothing before the deadline."""


class RunnerGone(Exception):
    """The runner closed its channel (it exited, crashed or was killed)."""


class Channel:
    """JSON records from the runner's pipe, one per line, each awaited until ``deadline``."""

    def __init__(self, fd: int):
        self.fd, self.buffer, self.lines, self.peeked = fd, b"", [], []
        self.deadline = time.monotonic() + STARTUP_TIMEOUT
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
        while not self.lines:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or not self.selector.select(remaining):
                raise RunnerTimeout()
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise RunnerGone()
            self.buffer += chunk
            *lines, self.buffer = self.buffer.split(b"\n")
            self.lines.extend(lines)
            if len(self.buffer) > MAX_LINE_BYTES:
                raise RunnerGone()
        line = self.lines.pop(0)
        try:
            return json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
            return {"malformed": line[:120].decode(errors="replace")}

    def close(self) -> None:
        self.selector.close()
        os.close(self.fd)
