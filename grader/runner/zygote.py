"""``python -m grader.runner.zygote``: a warm runner, started once in the sandbox.

It imports torch, transformers and the runner's own side of the grader (nothing of
``solutions``, ``lessons`` or the learner's code: it refuses to serve if any of them got
imported), then serves requests on its control socket (descriptor ``--control``, one end
of a socketpair whose other end the decider holds). Each request forks a child that runs
exactly what a cold runner runs once its limits are set (``__main__.run_checks``): learner
code only ever runs in a child. Control messages, decider to zygote, one byte each:

- ``F`` with three descriptors (SCM_RIGHTS): the read end of the setup pipe (the decider
  writes the child's whole setup there: a cold runner's command line, seeds, the sent reference;
  only the child reads it, so the zygote never holds one request's reference or seeds),
  the write end of the record pipe, and the unnamed output file: fork one child.
- ``R``: the child is done with. Every other process of the sandbox is killed (``kill(-1)``
  in the sandbox's own PID namespace, whose init the zygote is) and reaped (as the init,
  every orphan comes to it), ``/tmp`` and ``/dev/shm`` are emptied but for bubblewrap's
  binds, and the compile cache copied afresh from its read-only bind; anything left that it cannot remove
  (SysV IPC objects, a file it cannot delete) makes it exit, and the decider starts another.

Zygote to decider, JSON lines: ``{"ready": true}`` when it can fork, ``{"exited": code}``
once the child ended (``code``: its exit code, or 128 + the signal that killed it, as
bubblewrap reports a cold runner's). The zygote makes itself non-dumpable, so a child can
neither read nor write its memory (``/proc/<pid>/mem``, ptrace); the sandbox's seccomp
filter refuses ptrace and process_vm_readv/writev besides (grader/decider/sandbox.py). As
its namespace's init it gets no signal from a child that it has no handler for (SIGKILL and
SIGSTOP included), as a cold runner's bubblewrap init does not.
"""
import argparse
import ctypes
import gc
import json
import os
import random
import selectors
import shutil
import signal
import socket
import sys
import traceback

from grader import protocol
from grader.runner import __main__ as cold

PR_SET_DUMPABLE = 4
SCRATCH = ("/tmp", "/dev/shm")  # the sandbox's only writable places
SYSV_IPC = ("/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg")  # outlive their processes
FORK, REAP = b"F", b"R"
# what runners import before or with any learner code: the heavy part of a cold start
WARM_MODULES = ("torch", "transformers", "numpy", "grader.exercises", "grader.implementation",
                "grader.runner.record", "grader.runner.reference", "grader.checks.harness", "grader.wire",
                "grader.models", "grader.observers.observation")
# transformers' names the course imports: the first such import scans every model's module (1.2 s)
WARM_TRANSFORMERS = ("AutoModel", "AutoModelForCausalLM", "AutoTokenizer", "DynamicCache", "StaticCache",
                     "LlamaConfig", "LlamaForCausalLM")


class Refused(Exception):
    """The zygote cannot serve another child safely: it exits, saying why on its standard error."""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--control", type=int, required=True)
    parser.add_argument("--process-limit", type=int, required=True)
    parser.add_argument("--compile-cache", nargs=2, default=None, metavar=("FOLDER", "LEFT_OUT"))
    args = parser.parse_args()
    from grader import sources
    sources.course_alone()
    if os.getpid() != 1:  # kill(-1) would reach processes outside the sandbox
        raise SystemExit("grader.runner.zygote: refusing to start but as the init of a PID namespace")
    # as that init, the kernel drops any signal a child sends it that it has no handler for:
    # SIGKILL and SIGSTOP included, and SIGINT once Python's handler is gone
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0):
        raise SystemExit(f"grader.runner.zygote: prctl failed ({os.strerror(ctypes.get_errno())})")
    control = socket.socket(fileno=args.control)
    control.set_inheritable(False)
    kept = under_scratch(mount_points())  # bubblewrap's binds: all a child must find as they were
    try:
        fresh_scratch(args.compile_cache, kept)  # before torch is imported: it reads where its cache is
    except Refused as exc:
        raise SystemExit(f"grader.runner.zygote: {exc}") from None
    for module in WARM_MODULES:
        __import__(module)
    transformers = sys.modules["transformers"]
    for name in WARM_TRANSFORMERS:
        getattr(transformers, name)
    gc.collect()
    gc.freeze()  # the collector never walks what a child inherits: fewer pages copied on write
    taken = [m for m in sys.modules if m.split(".")[0] in ("solutions", "lessons")]
    if taken:  # a child would inherit them: under grading, the answers the sent reference withholds
        raise SystemExit(f"grader.runner.zygote: refusing to serve: {taken[0]} was imported")
    try:
        serve(control, args, kept)
    except Refused as exc:
        raise SystemExit(f"grader.runner.zygote: {exc}") from None


def serve(control: socket.socket, args, kept: set[str]) -> None:
    """Fork a child per ``F`` request and clean up after it on ``R``, until the decider hangs up."""
    say(control, protocol.Ready().record())
    while True:
        message, fds, _, _ = socket.recv_fds(control, 1, 3)
        if not message:
            return  # the decider closed its end: the sandbox goes with us
        if message != FORK or len(fds) != 3:
            raise Refused(f"expected a fork request with three descriptors, got {message!r}, {len(fds)}")
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(control, fds, args.process_limit)  # as a cold runner's: the decider's count allows for ours
        for fd in fds:
            os.close(fd)
        reported = await_reap(control, pid)
        statuses = reap_all()
        if not reported:
            say(control, protocol.Exited(wait_code(statuses[pid])).record())
        fresh_scratch(args.compile_cache, kept)
        say(control, protocol.Ready().record())


def await_reap(control: socket.socket, pid: int) -> bool:
    """Wait for the decider's ``R``; report the child's exit as soon as it comes (the decider
    words a runner that ended early by it). Returns whether it was reported."""
    reported = False
    with selectors.DefaultSelector() as selector:
        pidfd = os.pidfd_open(pid)
        selector.register(pidfd, selectors.EVENT_READ)
        selector.register(control, selectors.EVENT_READ)
        try:
            while True:
                for key, _ in selector.select():
                    if key.fileobj is control:
                        message = control.recv(1)
                        if message != REAP:
                            raise Refused(f"expected a reap request, got {message!r}")
                        return reported
                    say(control, protocol.Exited(wait_code(os.waitpid(pid, 0)[1])).record())
                    reported = True
                    selector.unregister(pidfd)
        finally:
            os.close(pidfd)


def wait_code(status: int) -> int:
    """A wait status as bubblewrap reports its child's: the exit code, or 128 + the signal."""
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def reap_all() -> dict[int, int]:
    """Every process of the sandbox but this one, its init, killed and reaped. ``kill(-1)``
    reaches every process this one may signal in its PID namespace at once (the kernel lists
    them under the lock that fork takes, so none escapes by forking); as the init, the zygote
    inherits and reaps the orphans. Returns {pid: wait status} of those reaped."""
    statuses = {}
    for _ in range(3):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nothing left to kill
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            statuses[pid] = status
        if not others():
            return statuses
    raise Refused(f"processes still run after the child was reaped: {others()[:5]}")


def others() -> list[int]:
    """The processes of the sandbox besides this one, its init."""
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != os.getpid()]


def fresh_scratch(compile_cache: list[str] | None, kept: set[str]) -> None:
    """``/tmp`` and ``/dev/shm`` emptied but for the mount points in ``kept`` (what bubblewrap
    binds there: the compile cache, a learner's file under /tmp) and the folders that lead to
    them, the compile cache copied again from its read-only bind (a child may have written the
    last copy), and no SysV IPC object left. Refused when anything stays: a mount moved, a
    folder made unreadable."""
    for folder in SCRATCH:
        for path in strays(folder, kept):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        left = next(strays(folder, kept), None)
        if left is not None:
            raise Refused(f"{left} could not be removed")
    if under_scratch(mount_points()) != kept:  # a folder leading to a bind was moved
        raise Refused("the mount points in /tmp changed")
    for table in SYSV_IPC:
        with open(table) as lines:
            if len(lines.readlines()) > 1:  # a header line, then one per object
                raise Refused(f"a SysV IPC object is left ({table})")
    if compile_cache:
        cold.copy_compile_cache(*compile_cache)


def strays(folder: str, kept: set[str]):
    """The paths under ``folder`` that are neither in ``kept`` nor lead to one of them."""
    for entry in os.scandir(folder):
        if entry.path in kept:
            continue
        if any(k.startswith(entry.path + os.sep) for k in kept) and entry.is_dir(follow_symlinks=False):
            yield from strays(entry.path, kept)
        else:
            yield entry.path


def mount_points() -> set[str]:
    """Every mount point this process sees (/proc/self/mountinfo's fifth field, unescaped)."""
    with open("/proc/self/mountinfo") as table:
        return {line.split()[4].encode().decode("unicode_escape") for line in table}


def under_scratch(points: set[str]) -> set[str]:
    """The mount points inside ``SCRATCH``'s folders (not the folders themselves)."""
    return {p for p in points if any(p.startswith(folder + os.sep) for folder in SCRATCH)}


def child(control: socket.socket, fds: list[int], process_limit: int) -> None:
    """The forked child: a cold runner's work from its limits on (``cold.run_checks``), then exit.
    Never returns."""
    code = 1
    try:
        control.close()  # the child has no say on the control channel
        setup_fd, record_fd, output_fd = fds
        os.dup2(output_fd, 1), os.dup2(output_fd, 2)
        os.close(output_fd)
        random.seed()  # as a cold runner: draws the learner's code makes unseeded differ per process
        signal.signal(signal.SIGINT, signal.default_int_handler)
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1)  # as a cold runner; the zygote stays non-dumpable
        cold.limit_resources(True, process_limit)
        with os.fdopen(setup_fd, "rb") as setup_file:
            setup = json.loads(setup_file.readline(cold.SETUP_BYTES))
        sys.stdin.close()
        argv = list(setup["argv"])  # a cold runner's command line, its record descriptor ours
        argv[argv.index("--fd") + 1] = str(record_fd)
        sys.argv = [cold.__file__, *argv]  # as ``python -m grader.runner`` sets it
        args = cold.arguments(argv)
        cold.run_checks(args.impl, args.grading, args.import_root, args.exercises, setup, record_fd)
        code = 0
    except SystemExit as exc:  # as the interpreter ends on one
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, (int, type(None))):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush(), sys.stderr.flush()
        finally:
            os._exit(code & 0xFF)


def say(control: socket.socket, message: dict) -> None:
    control.sendall(json.dumps(message).encode() + b"\n")


if __name__ == "__main__":
    main()
