"""Runners started, their records awaited with deadlines, the checks replayed on them."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from grader import exercises, protocol, sources
from grader.decider import preload, sandbox, warm
from grader.decider.channel import STARTUP_TIMEOUT, Channel, RunnerGone, RunnerOverLimit, RunnerTimeout
from grader.decider.reference import reference_sources, stood_in_noted, withheld
from grader.verdict import ERROR, FAILED, LAW, Verdict, load_error_verdict

# torch, the checks and the replay are imported only once the first runner has started
# (Preparation, _decide): both processes then load them at once, on their own cores.

SHOWN_OUTPUT_CHARS = 1500  # of what the learner's code printed, attached to the verdict
END_MARGIN = 10.0  # seconds the runner's end record may trail the decider's verdict, at least


class GraderFilesChanged(Exception):
    """A file of the grader or the reference changed while a runner ran: stop grading."""


def run_isolated(exercise_ids: list[str], impl: str, seed: int | dict[str, int],
                 timeout: float | None = None, grading: bool = False, import_root: Path | None = None,
                 sandboxed: bool = True, hidden: tuple[Path, ...] = (), runners: warm.WarmRunners | None = None):
    """Yield one Verdict per exercise id, in order, each decided here on a runner's records.

    ``seed``: one for every exercise, or ``{exercise id: seed}`` (``grader grade`` derives
    one per submission and exercise); the runner gets them on its standard input.
    ``grading``: each exercise is graded on its own functions alone (grader/implementation.py's
    ``Isolation``: the reference stands in for the learner's other exercises' steps), with the
    reference's answer to it and every step that could stand in for it withheld
    (grader/decider/reference.py), by a runner it shares only with exercises that withhold the
    same (``runner_batches``), and the sandbox covers the ``solutions`` folder: what a runner
    holds depends on its exercise alone, never on what else is graded.
    Each verdict names the reference's steps that stood in, and which of the learner's own
    failed their check in this run. ``import_root``: the folder the runner imports ``impl``
    from, before anywhere else; ``sandboxed``: each runner runs in the sandbox
    (grader/decider/sandbox.py), which covers the folders in ``hidden``. The traceback of a
    module that would not import is given once, with the first exercise it cost. Raises
    GraderFilesChanged when a file of the course's packages differs, after a runner, from
    what this process loaded and checked first.

    Sandboxed runners are forked by a warm zygote (grader/decider/warm.py) where
    ``warm.enabled``: ``runners``, the zygote of a caller that keeps one between calls (a
    notebook kernel), else, grading on several runners (or with ``GRADER_RUNNERS=warm``),
    one of this call's own, killed when it ends (under ``grader grade``, one submission's).
    """
    sources.install()  # what this process imports from here on (the checks, the judges) runs from source
    seeds = seed if isinstance(seed, dict) else dict.fromkeys(exercise_ids, seed)
    manifest = Preparation(exercise_ids)
    if not sandboxed:  # before any runner starts: an unsandboxed one could write what it imports
        manifest.made()
    batches = runner_batches(exercise_ids) if grading else [list(exercise_ids)]
    chosen = sandboxed and warm.enabled(many=runners is not None or len(batches) > 1)
    own = runners is None and chosen
    runners = warm.WarmRunners() if own else runners if chosen else None
    runner = Runner(impl, seeds, grading, import_root, sandboxed, hidden, runners)
    try:
        if not grading:
            yield from _tracebacks_once(_decided(runner, list(exercise_ids), timeout, manifest))
            return
        verdicts = {v.exercise: v for batch in batches for v in _decided(runner, batch, timeout, manifest)}
        verdicts = _reexamined(runner, verdicts, timeout, manifest)
        yield from _tracebacks_once(stood_in_noted([verdicts[e] for e in exercise_ids]))
    finally:
        manifest.release()
        if own:
            runners.close()


def _reexamined(runner: "Runner", verdicts: dict, timeout, manifest: "Preparation") -> dict:
    """``verdicts`` ({exercise id: verdict}), each one that failed on statistical tests alone
    (every finding a law's p-value: ``chance_failure``) decided again on fresh draws
    (``fresh_seed``) before it counts: it stays failed only when the fresh draws fail too. A
    correct exercise fails each run with probability at most 1e-3, independently, so both
    with at most 1e-6 (docs/grading.md derives the class's rate); a deterministic failure, or
    an impossible outcome seen, counts at once."""
    again = [e for e, verdict in verdicts.items() if chance_failure(verdict)]
    if not again:
        return verdicts
    fresh = Runner(runner.impl, {e: fresh_seed(verdicts[e].seed) for e in again}, runner.grading,
                   runner.import_root, runner.sandboxed, runner.hidden, runner.warm)
    for batch in runner_batches(again):
        for second in _decided(fresh, batch, timeout, manifest):
            first = verdicts[second.exercise]
            tested = (f"A first draw (seed {first.seed}) failed {len(first.findings)} statistical test(s); "
                      f"fresh draws (seed {second.seed})")
            verdicts[second.exercise] = (
                replace(second, summary=f"{second.summary} {tested} passed: a statistical failure counts "
                                        "only when fresh draws repeat it.") if second.passed
                else replace(first, summary=f"{first.summary} {tested} did not pass either ({second.status}), "
                                            "so it counts."))
    return verdicts


def chance_failure(verdict: Verdict) -> bool:
    """Whether a verdict failed on statistical tests alone, which correct code fails by chance."""
    return verdict.status == FAILED and bool(verdict.findings) and all(f.kind == LAW for f in verdict.findings)


def fresh_seed(seed: int) -> int:
    """The seed of the fresh draws that re-examine a statistical failure of ``seed``'s
    (``grader check EXERCISE --seed`` it, to see them again)."""
    fresh = int.from_bytes(hashlib.sha256(f"{seed}/fresh draws".encode()).digest()[:4], "little")
    return exercises.with_draws(fresh, exercises.draws(seed))  # as many samples as the first draw


def runner_batches(exercise_ids: list[str]) -> list[list[str]]:
    """The exercises a grading runner grades together: those that withhold the same names
    (``reference.withheld``: lesson 11's head step and its loss, say), so that each is graded
    as in a runner of its own, whatever else is graded."""
    batches: dict[frozenset, list[str]] = {}
    for exercise_id in exercise_ids:
        batches.setdefault(withheld(exercise_id), []).append(exercise_id)
    return list(batches.values())


def _tracebacks_once(verdicts):
    """``verdicts``, each traceback given once: a later verdict with the same summary and
    traceback (a module that would not import, for every exercise it holds) points back."""
    first: dict[tuple[str, str], str] = {}
    for verdict in verdicts:
        key = (verdict.summary, verdict.traceback)
        if verdict.traceback and key in first:
            verdict = replace(verdict, traceback="", summary=f"{verdict.summary} (the traceback "
                              f"is shown once, with {first[key]})")
        elif verdict.traceback:
            first[key] = verdict.exercise
        yield verdict


def _decided(runner: "Runner", exercise_ids: list[str], timeout, manifest: "Preparation"):
    """The verdicts of ``exercise_ids``, in order, from as many runners as it takes (a runner
    that stops early leaves the rest to the next one); grading, each runner withholds what
    the exercises it grades withhold. A verdict whose replay did not match the runner's
    records is checked on the reference's (``Runner.rechecked``)."""
    pending = list(exercise_ids)
    while pending:  # each pass starts a runner process
        for verdict, mismatch in runner.decide(pending, timeout, started=manifest.made, withheld=pending):
            _stop_if_changed(manifest.made())
            pending.remove(verdict.exercise)
            verdict = runner.rechecked(verdict, mismatch, timeout) if mismatch else verdict
            yield manifest.refused_noted(verdict)
        _stop_if_changed(manifest.made())


class Preparation:
    """What the decisions of ``exercise_ids`` import, imported (``preload``), and the digests
    of the course's files taken (``sources.Manifest``), once: before the first runner starts
    when runners run unsandboxed (such a runner could write the files this process would
    import), while it starts when they run in the sandbox (it can write no file of the host,
    and the course is read-only there), so that both processes' imports overlap. From then
    on until ``release``, the decider imports nothing (``preload.ImportGuard``)."""

    def __init__(self, exercise_ids: list[str]):
        self.exercise_ids, self.manifest, self.guard = exercise_ids, None, None

    def made(self) -> sources.Manifest:
        if self.manifest is None:
            sys.dont_write_bytecode = True
            guard = preload.preload(self.exercise_ids)
            exercises.exports()  # the reference's EXPORTS, read as text through the finders, once: before the guard
            self.manifest = sources.Manifest()  # a file written by a runner would otherwise be run here
            self.guard = guard.__enter__()
        return self.manifest

    def release(self) -> None:
        """The guard lifted: the decisions are made (the caller may import again)."""
        if self.guard is not None:
            self.guard.__exit__(None, None, None)
            self.guard = None

    def refused_noted(self, verdict: Verdict) -> Verdict:
        """``verdict``, or an error naming the modules the guard refused while it was decided
        (``preload.ImportGuard``): a course module the preload missed is a grader bug; a
        library's file changed since the preload was written while learner code ran."""
        refused = self.guard.taken() if self.guard is not None else []
        if not refused:
            return verdict
        named = "; ".join(f"`{module}` ({why})" for module, why in refused)
        if any(preload.in_course(module) for module, _ in refused):
            why = (f"the grader's check of {verdict.exercise} is broken, not your code: deciding it needed "
                   f"a module it refuses to import once your code may have run: {named}. Please report this "
                   f"grader bug to the course's maintainers, with the exercise and seed {verdict.seed}.")
        else:
            why = (f"the grader stopped deciding {verdict.exercise}: it needed a module whose file changed "
                   f"after your code started: {named}. Code that writes files outside its own folder "
                   "(run without the sandbox) does this; reinstall the package before checking again.")
        return replace(verdict, status=ERROR, findings=[], summary=why)


def _stop_if_changed(manifest: sources.Manifest) -> None:
    changed = manifest.changed()
    if changed:
        raise GraderFilesChanged(
            f"grading stopped: the course's file {changed[0]}"
            f"{f' (and {len(changed) - 1} more)' if len(changed) > 1 else ''} changed while "
            "learner code ran. A submission that writes the grader's files does this; reinstall "
            "the course (git checkout, or pip install) before grading again.")


class Runner:
    """How runner processes are started (sandboxed or not; forked by the zygote of ``warm``,
    a ``warm.WarmRunners``, or each a fresh process when it is None), and the decisions made
    on the records of each. The decider hands each runner open descriptors (its record pipe,
    a file with no name for its output, its seeds on its setup pipe or standard input) and
    opens no path the runner could write."""

    def __init__(self, impl, seeds, grading, import_root, sandboxed, hidden, warm_runners=None):
        self.impl, self.seeds = impl, seeds
        self.grading, self.import_root, self.sandboxed, self.hidden = grading, import_root, sandboxed, hidden
        self.warm = warm_runners

    def _impl(self) -> str:
        return str(Path(self.impl).resolve()) if self.impl.endswith(".py") else self.impl

    def command(self, exercise_ids, write_fd: int, seccomp_fd: int | None = None) -> list[str]:
        """The runner's command line (``-P``: no working folder on its import path), in the
        sandbox when it is sandboxed, bwrap reading its seccomp filter from ``seccomp_fd``."""
        cache = sandbox.compile_cache() if self.sandboxed else None
        command = [sys.executable, "-P", "-m", "grader.runner", *self._arguments(exercise_ids, write_fd, cache)]
        return self._wrapped(command, cache, seccomp_fd) if self.sandboxed else command

    def _arguments(self, exercise_ids, write_fd: int, cache) -> list[str]:
        """The arguments of ``python -m grader.runner`` (a warm runner's child is given them too)."""
        return ["--impl", self._impl(), "--fd", str(write_fd),
                *(["--grading"] if self.grading else []),
                *(["--import-root", str(self.import_root)] if self.import_root else []),
                *(["--sandboxed", "--process-limit", str(sandbox.PROCESS_LIMIT)] if self.sandboxed else []),
                *(["--compile-cache", str(cache[0]), sandbox.NOT_COPIED] if cache else []),
                *exercise_ids]

    def zygote_command(self, control_fd: int, seccomp_fd: int | None) -> list[str]:
        """The warm runner's command line (grader/runner/zygote.py), in the same sandbox as
        ``command``'s, as its PID namespace's init: its control socket on ``control_fd``."""
        cache = sandbox.compile_cache()
        command = [sys.executable, "-P", "-m", "grader.runner.zygote", "--control", str(control_fd),
                   "--process-limit", str(sandbox.PROCESS_LIMIT),
                   *(["--compile-cache", str(cache[0]), sandbox.NOT_COPIED] if cache else [])]
        return self._wrapped(command, cache, seccomp_fd, init=True)

    def _wrapped(self, command: list[str], cache, seccomp_fd: int | None, init: bool = False) -> list[str]:
        course = (sources.ROOT / "grader",) if self.grading else (sources.ROOT,)  # no answer in sight
        return sandbox.wrap(command, self._readable(), self.hidden, chdir=self._chdir(), cache=cache,
                            course=course, grading=self.grading, seccomp_fd=seccomp_fd, init=init)

    def _readable(self) -> list[Path]:
        """What the sandbox binds of the learner's: the implementation's file, and the folder
        it is imported from (the working folder by default)."""
        impl = self._impl()
        return [*([Path(impl)] if impl.endswith(".py") else []), self.import_root or Path.cwd()]

    def _chdir(self) -> Path | None:
        return None if self.import_root else Path.cwd()

    def _sandbox_key(self) -> tuple:
        """What makes two runners' sandboxes differ (``sandbox.wrap`` binds ``sys.path`` too,
        but while grading): a zygote serves only runners of one."""
        return (tuple(map(str, self._readable())), self.grading, tuple(map(str, self.hidden)), str(self._chdir()),
                () if self.grading else tuple(sys.path))

    def decide(self, exercise_ids, timeout, started=lambda: None, withheld=()):
        """The verdicts decided on one runner's records, each with where its replay did not
        match them (None when it did: ``ReplayCheckRun.mismatch``); ``started()`` runs once
        the runner has started, before its first record is read; grading, the reference it
        gets withholds the names of the exercises ``withheld``."""
        setup = {"seeds": {e: self.seeds[e] for e in exercise_ids}}
        if self.grading:
            setup["reference"] = reference_sources(tuple(withheld))
        with tempfile.TemporaryFile(prefix="grader-output-") as output:
            forked = self._forked(exercise_ids, setup, output.fileno(), started) if self.warm else None
            if forked is None:
                yield from self._started(exercise_ids, setup, output, started, timeout)
                return
            child, channel, launched = forked
            yield from _records_decided(child, channel, exercise_ids, self.seeds, timeout,
                                        Output(output.fileno()), launched)

    def _forked(self, exercise_ids, setup: dict, output_fd: int, started):
        """A child of this runner's zygote (started when it has none) reading ``setup``: the
        child, its record channel and when it was forked; None, the zygote killed,
        when it would not start or serve (the runner then starts cold)."""
        zygote = self.warm.zygote_for(self._sandbox_key(), self.zygote_command,
                                      sandbox.runner_environment(self.grading))
        read_fd, write_fd = os.pipe()
        setup_fd = None
        try:
            setup_fd = zygote.fork(write_fd, output_fd)
            launched = time.monotonic()  # the child's clock: a new zygote's start counts, as a runner's
            started()
            zygote.ready()
        except (warm.ZygoteFailed, RunnerTimeout):
            zygote.kill()
            for fd in (read_fd, setup_fd):
                if fd is not None:
                    os.close(fd)
            return None
        finally:
            os.close(write_fd)
        self.warm.forks += 1
        setup = {**setup, "argv": self._arguments(exercise_ids, -1, sandbox.compile_cache())}  # its fd: the child's
        child = warm.WarmChild(zygote)
        if not warm.write_setup(setup_fd, json.dumps(setup).encode() + b"\n", time.monotonic() + STARTUP_TIMEOUT):
            child.kill()
        watch = sandbox.process_watch(zygote.process.pid, zygote.resident)
        return child, Channel(read_fd, watch), launched

    def _started(self, exercise_ids, setup: dict, output, started, timeout):
        """The verdicts of a runner started as a fresh process (``command``)."""
        read_fd, write_fd = os.pipe()
        program = sandbox.setsid_filter() if self.sandboxed else None
        with tempfile.TemporaryFile(prefix="grader-seccomp-") as seccomp:
            seccomp.write(program or b"")
            seccomp.seek(0)
            seccomp_fd = seccomp.fileno() if program else None
            launched = time.monotonic()  # the runner's clock: its start-up counts (_records_decided)
            process = subprocess.Popen(self.command(exercise_ids, write_fd, seccomp_fd),
                                       pass_fds=(write_fd, *([seccomp_fd] if program else [])),
                                       stdin=subprocess.PIPE, stdout=output, stderr=output,
                                       start_new_session=True, env=sandbox.runner_environment(self.grading),
                                       cwd=None if self.sandboxed else self.import_root,
                                       preexec_fn=sandbox.die_with_parent)
            os.close(write_fd)
            try:
                process.stdin.write(json.dumps(setup).encode() + b"\n")
                process.stdin.close()
            except OSError:  # it ended already: its channel says so
                pass
            started()
            watch = sandbox.process_watch(process.pid) if self.sandboxed else None
            yield from _records_decided(process, Channel(read_fd, watch), exercise_ids, self.seeds,
                                        timeout, Output(output.fileno()), launched)

    def rechecked(self, verdict: Verdict, mismatch: str, timeout) -> Verdict:
        """``verdict``, whose replay did not match this runner's records (``mismatch``), once
        the check has run again on the course's reference in a runner of its own (the same
        seed and sandbox). When the reference's records do not match either, the check
        itself asks for other calls in the two processes (it broke the replay rule: an
        unseeded draw, a branch on the machine), and the verdict says so instead of blaming
        the learner's code; when they match, it was the learner's code, and ``verdict`` stands."""
        reference = Runner(REFERENCE, self.seeds, False, None, self.sandboxed, self.hidden)
        for _, again in reference.decide([verdict.exercise], timeout):
            if again:
                return grader_bug(verdict, again)
        return verdict


REFERENCE = "solutions"  # the course's own functions, run in place of the learner's


def grader_bug(verdict: Verdict, mismatch: str) -> Verdict:
    """The verdict of a check whose replay mismatches the reference's records too."""
    return replace(verdict, status=ERROR, findings=[], traceback="", summary=(
        f"the grader's check of {verdict.exercise} is broken, not your code: it asked for other "
        f"calls in the process running the code than in the one deciding the verdict, with the "
        f"course's reference as with your code ({mismatch}). Please report this grader bug to the "
        f"course's maintainers, with the exercise and seed {verdict.seed}."))


class Output:
    """What a runner printed: a file with no name on disk, opened here and handed to the
    runner as its standard output and error, read back through the descriptor, bounded."""

    def __init__(self, fd: int):
        self.fd = fd

    def head(self, start: int = 0, end: int | None = None) -> str:
        """The first characters printed between byte ``start`` and ``end`` (the end of the
        file by default), with a note of how much was cut."""
        size = os.fstat(self.fd).st_size
        end = size if end is None else min(end, size)
        start = min(start, end)
        raw = os.pread(self.fd, min(end - start, 4 * SHOWN_OUTPUT_CHARS), start)
        text = raw.decode("utf-8", errors="replace")[:SHOWN_OUTPUT_CHARS]
        shown = len(text.encode("utf-8", errors="replace")) if len(text) == SHOWN_OUTPUT_CHARS else len(raw)
        if end - start > shown:
            text += f"\n... ({end - start - shown} more bytes not shown)"
        return text.rstrip()


def _offset(record, key: str, value: str) -> int | None:
    """The byte offset (``output_at``) of ``record`` when it is the runner's well-formed
    ``key`` record ("start" or "end") of the exercise ``value``; None otherwise."""
    try:
        message = protocol.decode(record)
    except protocol.ProtocolError:
        return None
    kind = protocol.Start if key == "start" else protocol.End
    return message.output_at if isinstance(message, kind) and message.exercise == value else None


def _records_decided(process, channel, exercise_ids, seeds, timeout, output: Output, launched: float):
    """The verdicts decided on ``process``'s records, one per exercise until it stops, each
    with where its replay did not match them (``_decide``). The clock starts at ``launched``
    (``time.monotonic()`` when the runner was started): the first check ends at most
    STARTUP_TIMEOUT plus its limit after it, each later one its limit after the last ended,
    whenever the runner says it starts. ``process``: a ``subprocess.Popen``, or a
    ``warm.WarmChild``, whose zygote is kept only when every exercise ended as asked, its
    replay matched (anything else kills the zygote's whole sandbox, as a cold runner's)."""
    kept, matched = False, True
    try:
        for exercise_id in list(exercise_ids):  # the caller removes each one decided
            exercise, seed = exercises.get(exercise_id), seeds[exercise_id]
            started, at = time.monotonic(), 0
            limit = timeout or exercise.time_limit
            try:
                at = _offset(channel.receive(), "start", exercise_id)
                if at is None:
                    yield _verdict(exercise_id, seed, started, output.head(), "the process "
                                   "running your code did not start the check it was asked for."), None
                    return
                channel.deadline = min(time.monotonic(), launched + STARTUP_TIMEOUT) + limit
                started = time.monotonic()
                verdict, mismatch = _decide(exercise, seed, channel)
            except RunnerOverLimit as exc:
                _kill(process)
                yield _verdict(exercise_id, seed, started, output.head(at), f"{exc}."), None
                return
            except RunnerTimeout:
                _kill(process)
                yield _verdict(exercise_id, seed, started, output.head(at), f"the check of "
                               f"{exercise_id} did not finish within {limit:.0f} s, so it was "
                               "stopped. Look for a loop that never ends (a `while` whose condition "
                               "never changes, or a generation loop that ignores max_gen_len); "
                               "`--timeout` sets the limit."), None
                return
            except RunnerGone:
                try:  # its channel closed: it is ending, and its exit code says how
                    process.wait(timeout=END_MARGIN)
                except subprocess.TimeoutExpired:
                    _kill(process)
                yield _verdict(exercise_id, seed, started, output.head(at),
                               "the process running your code ended without finishing the check "
                               f"of {exercise_id} ({_describe_exit(process.returncode)}). A call to "
                               "os._exit, a crash inside a native library (segmentation fault) or "
                               "running out of memory does this."), None
                return
            verdict.seconds = time.monotonic() - started
            end = _end(channel, exercise_id, verdict.seconds)
            launched = time.monotonic() - STARTUP_TIMEOUT  # the next check's clock starts now
            verdict.output = output.head(at, end.output_at if end else None)
            verdict.reference_opened = list(end.reference_opened) if end else []
            if end is None:  # the runner is elsewhere in the check: the rest go to a new one
                _kill(process)  # before the caller acts on this verdict (a recheck starts a runner)
            matched = matched and mismatch is None
            yield verdict, mismatch
            if end is None:
                return
        kept = matched
    finally:
        if kept and isinstance(process, warm.WarmChild):
            process.finish()
        else:
            _kill(process)
        channel.close()


def _end(channel: Channel, exercise_id: str, elapsed: float) -> protocol.End | None:
    """The runner's record that ends the check, if it ends it where the decider did. It
    streams ahead of the decider but may trail at the end (both compute the last statistics)."""
    channel.deadline = min(channel.deadline, time.monotonic() + max(END_MARGIN, elapsed))
    try:
        message = protocol.decode(channel.receive())
    except (RunnerTimeout, RunnerGone, protocol.ProtocolError):
        return None
    return message if isinstance(message, protocol.End) and message.exercise == exercise_id else None


def _decide(exercise, seed: int, channel: Channel) -> tuple[Verdict, str | None]:
    """The exercise's check, run here on the runner's records: its verdict, and where the
    replay did not match them (None when it did)."""
    from grader.checks.harness import checked
    from grader.decider.replay import ReplayCheckRun

    try:
        first = protocol.decode(channel.peek())
    except protocol.ProtocolError:
        first = None  # the replay says what was wrong with it
    if isinstance(first, protocol.LoadError):
        channel.receive()
        return load_error_verdict(exercise.id, seed, first), None
    replay = ReplayCheckRun(exercise, seed, channel.receive)
    with one_torch_thread():
        try:
            return checked(replay), replay.mismatch
        except (RunnerTimeout, RunnerGone):
            raise
        except Exception as exc:  # check code that could not digest what the runner sent
            return Verdict(exercise.id, ERROR, f"the grader could not evaluate what your code "
                           f"returned ({type(exc).__name__}: {exc}). Run with -v for the traceback.",
                           seed, traceback=traceback.format_exc()), None


@contextmanager
def one_torch_thread():
    """This process's torch on one thread while it decides: the runner needs the other core,
    and the tiny models gain nothing from more."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _verdict(exercise_id: str, seed: int, started: float, output: str, summary: str) -> Verdict:
    return Verdict(exercise_id, ERROR, summary, seed, output=output, seconds=time.monotonic() - started)


def _kill(process) -> None:
    """A runner's whole sandbox killed: its process group, or a warm child's zygote's."""
    if isinstance(process, warm.WarmChild):
        process.kill()
        return
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0 or code - 128 in _SIGNALS:  # bubblewrap exits with 128 + the child's signal
        return f"killed by {signal.Signals(abs(code) if code < 0 else code - 128).name}"
    return f"exit code {code}"


_SIGNALS = {s.value for s in signal.Signals}
