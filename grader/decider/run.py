"""Runners started, their records awaited with deadlines, the checks replayed on them."""
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

from grader import exercises
from grader.checks.harness import checked
from grader.decider.channel import Channel, RunnerGone, RunnerTimeout
from grader.decider.replay import ReplayCheckRun
from grader.observers import observation
from grader.verdict import ERROR, Verdict

SHOWN_OUTPUT_CHARS = 1500  # of what the learner's code printed, attached to the verdict


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


def read_head(path: Path) -> str:
    """The first characters of a captured output, with a note of how much was cut."""
    if not path.exists():
        return ""
    size = path.stat().st_size
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(SHOWN_OUTPUT_CHARS)
    if size > len(head.encode()):
        head += f"\n... ({size - len(head.encode())} more bytes not shown)"
    return head.rstrip()
