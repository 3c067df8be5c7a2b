"""Kills the process that started it (the grader, where there is no sandbox) at import.
Its max_fn is wrong."""
import os
import signal

try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass


def max_fn(x):
    return x * 0
