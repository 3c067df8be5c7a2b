"""Run checks in a child process, with a time limit per check and an unforgeable verdict.

A pass can only come from a verdict line the grader's own code writes to a private pipe
after a check ends. If the child exits, crashes, is killed or hangs first, the exercise
gets an error verdict saying what happened, and the remaining exercises run in a new child.
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader import exercises
from grader.child import read_head
from grader.verdict import ERROR, Verdict

STARTUP_TIMEOUT = 60.0  # importing torch and transformers in a fresh process


def run_isolated(exercise_ids: list[str], impl: str, seed: int, timeout: float | None = None):
    """Yield one Verdict per exercise id, in order, each from a child process.

    Each check may run for ``timeout`` seconds, or by default its exercise's own limit
    (``Exercise.time_limit``: ten times the reference's time, at least 15 s).
    """
    pending = list(exercise_ids)
    with tempfile.TemporaryDirectory(prefix="grader-") as outdir:
        while pending:
            for verdict in _one_child(pending, impl, seed, timeout, Path(outdir)):
                pending.remove(verdict.exercise)
                yield verdict


def _one_child(exercise_ids, impl, seed, timeout, outdir):
    read_fd, write_fd = os.pipe()
    command = [sys.executable, "-m", "grader.child", "--impl", impl, "--seed", str(seed),
               "--fd", str(write_fd), "--outdir", str(outdir), *exercise_ids]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    process = subprocess.Popen(command, pass_fds=(write_fd,), stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=open(outdir / "child.err", "wb"),
                               start_new_session=True, env=env)
    os.close(write_fd)
    remaining = list(exercise_ids)
    current, started, limit = None, time.monotonic(), STARTUP_TIMEOUT
    deadline = started + limit
    try:
        for message in _messages(read_fd, lambda: deadline):
            if "start" in message:
                current, started = message["start"], time.monotonic()
                limit = timeout or exercises.get(current).time_limit
                deadline = started + limit
            elif "verdict" in message:
                remaining.remove(current)
                current = None
                yield Verdict.from_dict(message["verdict"])
            elif "timeout" in message:
                name = current or remaining[0]
                yield Verdict(name, ERROR, f"the check of {name} did not finish within "
                              f"{limit:.0f} s, so it was stopped. Look for a loop that never "
                              "ends (a `while` whose condition never changes, or a generation loop "
                              "that ignores max_gen_len); `--timeout` sets the limit.", seed,
                              output=read_head(outdir / f"{name}.out"),
                              seconds=time.monotonic() - started)
                return
    finally:
        _kill(process)
        os.close(read_fd)
    if not remaining:
        return
    name = current or remaining[0]
    yield Verdict(name, ERROR, f"the process running your code ended without a verdict while "
                  f"checking {name} ({_describe_exit(process.returncode)}). A call to os._exit, "
                  "a crash inside a native library (segmentation fault) or running out of memory "
                  "does this.", seed, output=read_head(outdir / f"{name}.out") or
                  read_head(outdir / "child.err"), seconds=time.monotonic() - started)


def _messages(fd: int, deadline):
    """JSON messages from the pipe until EOF, or a last ``{"timeout": True}`` past the deadline."""
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = deadline() - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                yield {"timeout": True}
                return
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                yield json.loads(line)


def _kill(process: subprocess.Popen) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"
