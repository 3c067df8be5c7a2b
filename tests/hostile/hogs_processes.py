"""Starts 200 busy processes, each trying to lead a session of its own (the kernel's autogroups
would then give each of them as large a share of the CPU as a whole other runner), and keeps
them busy for two minutes; its max_fn is wrong. Graded beside a correct submission, it must
change nothing of that one's verdict."""
import os
import time

HOGS = 200


def _busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def _hog() -> None:
    for _ in range(HOGS):
        try:
            if os.fork() == 0:
                try:
                    os.setsid()
                except OSError:
                    pass  # refused: busy all the same
                _busy(120)
                os._exit(0)
        except OSError:  # the process limit: keep what was started
            return


_hog()


def max_fn(x):
    return x * 0
