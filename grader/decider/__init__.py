"""Decide verdicts without ever running the learner's code in this process.

For a batch of exercises the decider starts a runner (``python -m grader.runner``), the
process that imports the learner's code and runs each check with it, sending what every
call returned. The decider runs the same check on those records (``ReplayCheckRun``):
its statistics, exact laws and expected outputs are computed here, by the course's own
code, on plain data that was checked on arrival (grader/wire.py). A runner that crashes,
hangs, floods or sends anything malformed gets an error verdict; a forged record can at
most forge a result, which is then tested like any other. The two processes work side by
side: the runner streams its records while the decider tests the earlier ones.

Each check may run for its exercise's time limit (``Exercise.time_limit``) or ``timeout``
seconds; after a stopped or broken runner, the remaining exercises go to a new one.

Modules: ``run`` (``run_isolated``: runners started and their records awaited),
``preload`` (what the decisions need, imported first, and the guard that refuses any later
import), ``sandbox`` (bubblewrap around each runner), ``warm`` (runners forked by a zygote),
``channel`` (the runner's pipe, read a record at a time with deadlines) and ``replay``
(``ReplayCheckRun``: each call's answer taken from the next record and checked).
This package never imports the learner's code, ``grader.implementation`` or
``grader.runner``; tests/test_layout.py holds it to that.
"""
from grader.decider import sandbox
from grader.decider.run import GraderFilesChanged, run_isolated

__all__ = ["GraderFilesChanged", "run_isolated", "sandbox"]
