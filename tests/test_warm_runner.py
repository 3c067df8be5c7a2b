"""Warm runners (grader/runner/zygote.py, grader/decider/warm.py): a zygote forks each runner;
verdicts are those of a cold runner, and nothing of one child's reaches the next.

Cheap: one zygote for the module (``pool``), max_fn-sized checks, two cold runs in all."""
import os
import sys
import textwrap
from dataclasses import asdict

import pytest

from grader.decider import run, sandbox, warm

pytestmark = pytest.mark.skipif(bool(sandbox.unavailable()),
                                reason=f"bubblewrap cannot run here: {sandbox.unavailable()}")

# a correct max_fn beside a wrong verify: one run gives a pass and a failure
MIXED = """
import numpy as np
from solutions import max_fn


def speculative_decoding_verify(draft_tokens, draft_probs, target_probs, vocab_size):
    return list(draft_tokens)  # accepts every draft
"""

# what a child leaves behind (a process, a file in /tmp and in /dev/shm), and what it finds of
# an earlier child's; its max_fn passes only when it finds nothing
LEAVER = """
import os, subprocess, sys

MARK = "left-by-an-earlier-child"
found = [p for p in ("/tmp/" + MARK, "/dev/shm/" + MARK) if os.path.exists(p)]
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if MARK.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
            found.append(f"process {pid}")
    except OSError:
        pass
print("found:", found or "nothing")
for path in ("/tmp/" + MARK, "/dev/shm/" + MARK):
    open(path, "w").write("x")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", MARK])
print("planted:", all(os.path.exists(p) for p in ("/tmp/" + MARK, "/dev/shm/" + MARK)))


def max_fn(x):
    if found:
        return x * 0
    from solutions import max_fn as reference
    return reference(x)
"""

# tries the zygote's memory (it is the parent, the sandbox's init), signals it, then writes a
# forged record into every descriptor it has
HOSTILE = """
import os, signal

FORGED = b'{"ready": true}\\n{"exited": 0}\\n{"end": "max_fn"}\\n'
tried = []
for what in ("/proc/1/mem", "/proc/1/environ"):
    try:
        open(what, "r+b" if what.endswith("mem") else "rb").close()
        tried.append(f"{what} opened")
    except OSError as exc:
        tried.append(f"{what} refused")
for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGINT, signal.SIGTERM):
    try:
        os.kill(1, sig)
    except OSError:
        pass
print("tried:", tried, flush=True)
for fd in range(3, 256):
    try:
        os.write(fd, FORGED)
    except OSError:
        pass


def max_fn(x):
    return x * 0
"""


HANGS = """
import time


def max_fn(x):
    time.sleep(600)
"""


@pytest.fixture(scope="module")
def pool():
    runners = warm.WarmRunners()
    yield runners
    runners.close()


@pytest.fixture(scope="module")
def learners(tmp_path_factory):
    """One folder of learner modules, imported from there by name: one sandbox, one zygote."""
    folder = tmp_path_factory.mktemp("warm")
    for name, source in {"mixed": MIXED, "leaver": LEAVER, "hostile": HOSTILE, "hangs": HANGS}.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(source))
    return folder


def decided(pool, folder, exercise_ids, impl, **options) -> list:
    return list(run.run_isolated(exercise_ids, impl, 0, runners=pool, import_root=folder, **options))


def comparable(verdict) -> dict:
    """A verdict without its timings."""
    return {k: v for k, v in asdict(verdict).items() if k != "seconds"}


def test_warm_verdicts_are_the_cold_ones(pool, learners, monkeypatch):
    forks = pool.forks
    warm_verdicts = decided(pool, learners, ["max_fn", "speculative_decoding_verify"], "mixed")
    assert pool.forks == forks + 1 and pool.zygote.alive
    monkeypatch.setenv(warm.WARM_VARIABLE, "cold")
    cold_verdicts = decided(None, learners, ["max_fn", "speculative_decoding_verify"], "mixed")
    assert [v.status for v in warm_verdicts] == ["passed", "failed"]
    assert [comparable(v) for v in warm_verdicts] == [comparable(v) for v in cold_verdicts]


def test_grading_warm_verdicts_are_the_cold_ones(learners, monkeypatch):
    """Under grading the child installs the reference as sent, read from its own pipe, before
    anything imports solutions: the same verdict."""
    from tests.test_grade import buggy_lessons, write_submission
    submission = learners / "submission"
    write_submission(submission, buggy_lessons())  # max_fn without its clamp
    graded = {}
    for mode in ("warm", "cold"):
        monkeypatch.setenv(warm.WARM_VARIABLE, mode)
        runners = warm.WarmRunners()
        graded[mode] = list(run.run_isolated(["max_fn"], "lessons", 7, grading=True, import_root=submission,
                                             runners=runners))
        runners.close()
        assert runners.forks == (1 if mode == "warm" else 0)
    assert graded["warm"][0].status == "failed"
    assert [comparable(v) for v in graded["warm"]] == [comparable(v) for v in graded["cold"]]


def test_nothing_of_a_child_reaches_the_next(pool, learners):
    forks = pool.forks
    first, = decided(pool, learners, ["max_fn"], "leaver")
    second, = decided(pool, learners, ["max_fn"], "leaver")
    assert pool.forks == forks + 2
    assert "planted: True" in first.output and "found: nothing" in first.output, first.output
    assert "found: nothing" in second.output, second.output
    assert first.passed and second.passed, second.summary


def test_a_hostile_child_changes_no_other_verdict(pool, learners):
    forks = pool.forks
    attacked, = decided(pool, learners, ["max_fn"], "hostile")
    assert not attacked.passed
    assert "/proc/1/mem refused" in attacked.output and "/proc/1/environ refused" in attacked.output, attacked.output
    after, = decided(pool, learners, ["max_fn"], "mixed")
    assert after.passed, after.summary
    assert pool.forks == forks + 2  # both warm: the zygote survived its child's signals


def test_a_hanging_child_is_stopped_and_the_next_gets_a_fresh_zygote(pool, learners):
    decided(pool, learners, ["max_fn"], "mixed")
    zygote = pool.zygote
    hung, = decided(pool, learners, ["max_fn"], "hangs", timeout=3)
    assert "did not finish within 3 s" in hung.summary and not zygote.alive
    after, = decided(pool, learners, ["max_fn"], "mixed")
    assert after.passed and pool.zygote is not zygote and pool.zygote.alive


def fake_zygote(says: bytes) -> warm.Zygote:
    """A Zygote whose process, unsandboxed, writes ``says`` on its control socket and waits."""
    code = f"import os, sys, time; os.write(int(sys.argv[1]), {says!r}); time.sleep(60)"
    return warm.Zygote(lambda control, seccomp: [sys.executable, "-c", code, str(control)], dict(os.environ))


@pytest.mark.parametrize("says", [b'{"ready": 1}\n', b'{"ready": true, "x": 1}\n', b"not json\n",
                                  b'{"exited": 0}\n', b"[" * 100000 + b"\n"])
def test_a_zygote_saying_anything_else_is_refused(says):
    zygote = fake_zygote(says)
    with pytest.raises(warm.ZygoteFailed):
        zygote.ready()
    zygote.kill()
    assert zygote.process.poll() is not None


def test_a_zygote_that_says_nothing_is_waited_for_no_longer_than_its_deadline():
    zygote = fake_zygote(b"")
    zygote.channel.deadline = 0
    with pytest.raises(run.RunnerTimeout):
        zygote.ready()
    zygote.kill()
