"""Warm runners: the decider's side of a zygote (grader/runner/zygote.py), a process started
once in the sandbox that has imported torch and transformers and forks one child per runner.

A check then pays for a fork instead of a fresh Python importing torch. The decider treats
the zygote as hostile, like a runner: every wait on it is bounded (``STARTUP_TIMEOUT`` to
start, ``REAP_TIMEOUT`` to clean up after a child), every message is validated, and on any
timeout, limit, mismatch or malformed message the whole sandbox is killed (its process
group) and the next runner gets a fresh zygote. A zygote serves one owner (``WarmRunners``):
one ``run_isolated`` call, so one submission under ``grader grade``, or one notebook kernel.
Notebook kernels and gradings of several runners (a submission under ``grader grade`` or the
autograder) use one by default; a single ``grader check`` only with ``GRADER_RUNNERS=warm``;
``GRADER_RUNNERS=cold`` starts every runner as a fresh process, as before (``enabled``).
"""
import os
import select
import signal
import socket
import subprocess
import tempfile
import time

from grader import protocol, sources
from grader.decider import sandbox
from grader.decider.channel import Channel, RunnerGone, RunnerTimeout

WARM_VARIABLE = "GRADER_RUNNERS"  # "cold": every runner a fresh process; "warm": every call forks
REAP_TIMEOUT = 30.0  # the zygote's clean-up after a child: kill, reap, empty /tmp, copy the cache again
RESIDENT_LIMIT = 8  # the zygote's own threads: more is not the zygote this code starts
KILLED = 128 + signal.SIGKILL  # how bubblewrap reports a runner killed, as the zygote reports a child


def enabled(many: bool) -> bool:
    """Whether runners are forked by a zygote rather than each started as a fresh process:
    by default where one zygote serves many runners (``many``: a notebook kernel's, kept
    between calls, or a submission graded by several runners), where the imports it saves
    are paid once. A ``grader check`` of one runner starts cold unless
    ``GRADER_RUNNERS=warm`` (docs/grading.md, "Warm runners", has the numbers);
    ``GRADER_RUNNERS=cold`` starts every runner cold."""
    chosen = os.environ.get(WARM_VARIABLE, "")
    return chosen == "warm" or (chosen != "cold" and many)


class ZygoteFailed(Exception):
    """The zygote did not start, or said something other than what it must."""


class Zygote:
    """One zygote in its sandbox: ``command(control_fd, seccomp_fd)`` is its bubblewrap command
    line (grader/decider/run.py's ``Runner.zygote_command``). Launched at once; ``ready()``
    awaits its first word."""

    def __init__(self, command, environment: dict[str, str]):
        ours, theirs = socket.socketpair()
        program = sandbox.setsid_filter()
        self.seccomp = tempfile.TemporaryFile(prefix="grader-seccomp-")  # bwrap reads it as it starts
        self.seccomp.write(program or b"")
        self.seccomp.seek(0)
        seccomp_fd = self.seccomp.fileno() if program else None
        self.log = tempfile.TemporaryFile(prefix="grader-zygote-")  # its own output: why it refused, say
        self.process = subprocess.Popen(command(theirs.fileno(), seccomp_fd),
                                        pass_fds=(theirs.fileno(), *([seccomp_fd] if program else [])),
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                        start_new_session=True, env=environment, preexec_fn=sandbox.die_with_parent)
        theirs.close()
        self.control = ours
        self.channel = Channel(os.dup(ours.fileno()), sandbox.process_watch(self.process.pid))
        self.resident: int | None = None  # its threads but one (which stands for a cold sandbox's init), once ready
        self.exited: int | None = None  # the current child's exit code, once the zygote reported it
        self.reaping = False  # asked to reap: its ``exited`` (if not yet read) and ``ready`` are due
        self.alive = True

    def ready(self) -> None:
        """Wait for the zygote's first ``ready`` (STARTUP_TIMEOUT from its launch, set by the
        channel); count what it runs. Raises ZygoteFailed."""
        if self.resident is not None:
            return
        self._expect(protocol.Ready)
        self.resident = sandbox.tasks_in(self.process.pid) - 1
        if not 0 <= self.resident <= RESIDENT_LIMIT:
            raise ZygoteFailed(f"the zygote runs {self.resident} threads")

    def fork(self, record_fd: int, output_fd: int) -> int:
        """Ask for a child whose records go to ``record_fd`` and its output to ``output_fd``;
        returns the write end of its setup pipe (``write_setup``)."""
        setup_read, setup_write = os.pipe()
        try:
            socket.send_fds(self.control, [b"F"], [setup_read, record_fd, output_fd])
        except OSError as exc:
            os.close(setup_write)
            raise ZygoteFailed(f"the zygote is gone ({exc})") from None
        finally:
            os.close(setup_read)
        self.exited = None
        return setup_write

    def exit_code(self, timeout: float) -> int:
        """The current child's exit code, as the zygote reports it within ``timeout`` seconds;
        raises subprocess.TimeoutExpired (the caller kills the sandbox)."""
        if self.exited is None:
            self.channel.deadline = time.monotonic() + timeout
            try:
                self.exited = self._expect(protocol.Exited).code
            except RunnerTimeout:
                raise subprocess.TimeoutExpired("zygote", timeout) from None
        return self.exited

    def reap(self) -> None:
        """Have the zygote kill and reap the current child and all it started, and clean its
        sandbox's writable places, within REAP_TIMEOUT (``settle`` awaits it, so that the
        clean-up overlaps what the caller does next); raises ZygoteFailed."""
        try:
            self.control.sendall(b"R")
        except OSError as exc:
            raise ZygoteFailed(f"the zygote is gone ({exc})") from None
        self.channel.deadline = time.monotonic() + REAP_TIMEOUT
        self.reaping = True

    def settle(self) -> None:
        """Wait for the reaping asked for (``reap``) to end, by its deadline; raises
        ZygoteFailed or RunnerTimeout."""
        if self.reaping:
            if self.exited is None:
                self.exited = self._expect(protocol.Exited).code
            self._expect(protocol.Ready)
            self.reaping = False

    def _expect(self, kind: type):
        """The zygote's next message, which must be a ``kind`` (``protocol.Ready`` or
        ``protocol.Exited``). Raises ZygoteFailed otherwise, RunnerTimeout past the channel's
        deadline."""
        try:
            message = self.channel.receive()
        except RunnerGone as exc:
            raise ZygoteFailed(f"the zygote ended ({exc})") from None
        try:
            said = protocol.zygote_message(message)
        except protocol.ProtocolError:
            said = None
        if not isinstance(said, kind):
            raise ZygoteFailed(f"the zygote said {str(message)[:120]} where {kind.__name__.lower()} was due")
        return said

    def kill(self) -> None:
        """The whole sandbox killed (its process group) and everything of it closed."""
        if not self.alive:
            return
        self.alive = False
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        self.channel.close()
        for held in (self.control, self.seccomp, self.log):
            held.close()


def write_setup(fd: int, data: bytes, deadline: float) -> bool:
    """``data`` written to the setup pipe ``fd`` (then closed) by ``deadline``
    (``time.monotonic()``); False when it could not be: the child never read it."""
    os.set_blocking(fd, False)
    view = memoryview(data)
    try:
        while view:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                return False
            view = view[os.write(fd, view):]
        return True
    except BrokenPipeError:  # the child ended: its record pipe says how
        return True
    finally:
        os.close(fd)


class WarmChild:
    """A runner forked by a zygote, handled as grader/decider/run.py handles a runner's
    process: ``wait``, ``poll``, ``returncode`` (as bubblewrap would give them), ``kill``
    (the whole zygote's sandbox) and ``finish`` (the child reaped, the zygote kept)."""

    def __init__(self, zygote: Zygote):
        self.zygote, self.returncode = zygote, None

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float) -> int:
        if self.returncode is None:
            try:
                self.returncode = self.zygote.exit_code(timeout)
            except ZygoteFailed:
                self.kill()
        return self.returncode

    def kill(self) -> None:
        self.zygote.kill()
        if self.returncode is None:
            self.returncode = KILLED

    def finish(self) -> None:
        """The zygote asked to kill and reap the child and all it started and to clean up
        (``WarmRunners.zygote_for`` awaits it before the next child); the whole sandbox killed
        instead when it cannot be asked."""
        if not self.zygote.alive:
            return
        try:
            self.zygote.reap()
        except (ZygoteFailed, RunnerTimeout):
            self.kill()


class WarmRunners:
    """The zygote of one owner (a ``run_isolated`` call, a notebook kernel): at most one at a
    time, for one sandbox (``key``), replaced when the key changes, when it died, or when a
    course file changed since it started (it holds the course's modules as they were).
    ``forks`` counts the runners it forked (what the tests compare with the cold path)."""

    def __init__(self):
        self.zygote: Zygote | None = None
        self.key, self.manifest, self.forks, self.owner = None, None, 0, os.getpid()

    def zygote_for(self, key, command, environment: dict[str, str]) -> Zygote:
        """A live zygote for ``key``, done with its last child, launched with ``command`` and
        ``environment`` when there is none (or the last would not settle). A process forked
        from the owner (multiprocessing in a notebook) starts its own: the socket is the owner's."""
        if self.owner != os.getpid():
            self.zygote, self.owner = None, os.getpid()
        if self.zygote is not None and (not self.zygote.alive or key != self.key or self.manifest.changed()):
            self.close()
        if self.zygote is not None:
            try:
                self.zygote.settle()
            except (ZygoteFailed, RunnerTimeout):
                self.close()
        if self.zygote is None:
            self.manifest = sources.Manifest()  # before it starts: a change after is seen next time
            self.zygote, self.key = Zygote(command, environment), key
        return self.zygote

    def close(self) -> None:
        if self.zygote is not None:
            self.zygote.kill()
        self.zygote = None

