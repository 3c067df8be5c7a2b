"""Leaves processes behind: a child in the runner's session, and a grandchild that leaves it
(double fork, setsid where allowed), each sleeping five minutes under a name the test looks
for among the machine's processes; then hangs, so that its runner is stopped at the limit."""
import os
import sys
import time

MARKER = "left-behind-by-leaves_processes"


def _sleeper() -> None:
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", MARKER])


if os.fork() == 0:  # the child: stays in the session
    if os.fork() == 0:  # the grandchild: an orphan in a session of its own, where setsid works
        try:
            os.setsid()
        except OSError:
            pass
        _sleeper()
    _sleeper()


def max_fn(x):
    time.sleep(600)
    return x
