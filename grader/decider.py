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
"""
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

from grader import exercises, observation
from grader.harness import ReplayCheckRun, checked
from grader.runner import read_head
from grader.verdict import ERROR, Verdict

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
        except ValueError:
            return {"malformed": line[:120].decode(errors="replace")}

    def close(self) -> None:
        self.selector.close()
        os.close(self.fd)


def run_isolated(exercise_ids: list[str], impl: str, seed: int, timeout: float | None = None,
                 grading: bool = False, import_root: Path | None = None):
    """Yield one Verdict per exercise id, in order, each decided here on a runner's records.

    ``grading``: the runner refuses imports of ``solutions`` from the learner's code;
    ``import_root``: the folder the runner imports ``impl`` from, before anywhere else.
    """
    pending = list(exercise_ids)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the runner needs the other core; the tiny models gain nothing
    try:
        with tempfile.TemporaryDirectory(prefix="grader-") as outdir:
            while pending:
                for verdict in _one_runner(pending, impl, seed, timeout, Path(outdir), grading,
                                           import_root):
                    pending.remove(verdict.exercise)
                    yield verdict
    finally:
        torch.set_num_threads(threads)


def _one_runner(exercise_ids, impl, seed, timeout, outdir, grading, import_root):
    read_fd, write_fd = os.pipe()
    command = [sys.executable, "-m", "grader.runner", "--impl", impl, "--seed", str(seed),
               "--fd", str(write_fd), "--outdir", str(outdir), *(["--grading"] if grading else []),
               *(["--import-root", str(import_root)] if import_root else []), *exercise_ids]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(outdir / "runner.err", "wb") as errors:
        process = subprocess.Popen(command, pass_fds=(write_fd,), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=errors,
                                   start_new_session=True, env=env,
                                   cwd=outdir if import_root else None)  # nothing to import there
    os.close(write_fd)
    channel = Channel(read_fd)
    try:
        for exercise_id in list(exercise_ids):  # the caller removes each one decided
            exercise = exercises.get(exercise_id)
            started = time.monotonic()
            limit = timeout or exercise.time_limit
            output = outdir / f"{exercise_id}.out"
            try:
                if channel.receive() != {"start": exercise_id}:
                    yield _verdict(exercise_id, seed, started, read_head(output), "the process "
                                   "running your code did not start the check it was asked for.")
                    return
                started = time.monotonic()  # the runner's start-up has its own limit
                channel.deadline = started + limit
                verdict = _decide(exercise, seed, channel)
            except RunnerTimeout:
                yield _verdict(exercise_id, seed, started, read_head(output), f"the check of "
                               f"{exercise_id} did not finish within {limit:.0f} s, so it was "
                               "stopped. Look for a loop that never ends (a `while` whose condition "
                               "never changes, or a generation loop that ignores max_gen_len); "
                               "`--timeout` sets the limit.")
                return
            except RunnerGone:
                process.wait()
                yield _verdict(exercise_id, seed, started,
                               read_head(output) or read_head(outdir / "runner.err"),
                               "the process running your code ended without finishing the check "
                               f"of {exercise_id} ({_describe_exit(process.returncode)}). A call to "
                               "os._exit, a crash inside a native library (segmentation fault) or "
                               "running out of memory does this.")
                return
            verdict.output, verdict.seconds = read_head(output), time.monotonic() - started
            yield verdict
            if not _ended(channel, exercise_id, time.monotonic() - started):
                return  # the runner is elsewhere in the check: the rest go to a new one
    finally:
        _kill(process)
        channel.close()


def _ended(channel: Channel, exercise_id: str, elapsed: float) -> bool:
    """Whether the runner ends the check where the decider did. It streams ahead of the
    decider but may trail at the end (both compute the check's last statistics)."""
    channel.deadline = min(channel.deadline, time.monotonic() + max(10.0, elapsed))
    try:
        return channel.receive() == {"end": exercise_id}
    except (RunnerTimeout, RunnerGone):
        return False


def _decide(exercise, seed: int, channel: Channel) -> Verdict:
    """The exercise's check, run here on the runner's records."""
    first = channel.peek()
    if type(first) is dict and "load_error" in first:
        return _load_error(exercise, seed, channel.receive()["load_error"])
    with observation.check_scope(observation.REPLAY):
        try:
            return checked(ReplayCheckRun(exercise, seed, channel.receive))
        except (RunnerTimeout, RunnerGone):
            raise
        except Exception as exc:  # check code that could not digest what the runner sent
            return Verdict(exercise.id, ERROR, f"the grader could not evaluate what your code "
                           f"returned ({type(exc).__name__}: {exc}). Run with -v for the traceback.",
                           seed, traceback=traceback.format_exc())


def _load_error(exercise, seed: int, error) -> Verdict:
    error = error if type(error) is dict else {}
    text = {k: str(v)[:5000] for k, v in error.items()}
    if text.get("kind") == "syntax":
        summary = (f"your code has a syntax error in {text.get('file')}, line {text.get('line')}: "
                   f"{text.get('message')}. Fix it, then check again.")
    elif text.get("kind") == "missing":
        summary = text.get("message", "")
    else:
        summary = (f"importing your code failed with {text.get('message')}{text.get('frame', '')}. "
                   "Code at the top level of a module runs on import: keep it to definitions.")
    return Verdict(exercise.id, ERROR, summary, seed, traceback=text.get("traceback", ""))


def _verdict(exercise_id: str, seed: int, started: float, output: str, summary: str) -> Verdict:
    return Verdict(exercise_id, ERROR, summary, seed, output=output, seconds=time.monotonic() - started)


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


def replayed(exercise, impl: str, seed: int) -> Verdict:
    """The verdict the decider gives on the records of a run in this same process: the
    check runs once recording (calling the learner's code), then once replaying those
    records, JSON-encoded as the pipe carries them. For tests: the decider's decisions on
    every mutant and variant without starting a process for each."""
    from grader import harness, implementation

    records: list[str] = []
    try:
        module = implementation.load(impl, exercise.module)
    except BaseException:  # what an import failure gives is the runner's, tested apart
        return harness.run_check(exercise, impl, seed)
    with observation.check_scope(observation.RECORD):
        harness.checked(harness.RecordingCheckRun(
            exercise, module, seed, lambda message: records.append(json.dumps(message, allow_nan=False))))
    pending = iter(records)
    with observation.check_scope(observation.REPLAY):
        return checked(ReplayCheckRun(exercise, seed, lambda: json.loads(next(pending))))
