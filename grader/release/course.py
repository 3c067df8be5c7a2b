"""The course's files as a release ships them: what ``grader release`` and ``grader autograder`` copy.

Which files: in a git checkout, those git tracks (as the working tree has them, so an
instructor's edits are released; an untracked file is left out, and named, so that a zip or
a scratch file lying in the checkout is never shipped by accident); in a folder without git
(an unpacked release), every file that its ``.gitignore`` does not name. ``lessons/`` is
what ``lessons.py`` writes from ``solutions/``, and each notebook is its committed copy, whose
stored outputs are the stubs' (a working copy run on the reference would show its outputs).
"""
import fnmatch
import os
import shutil
import subprocess
from pathlib import Path

from grader import sources
from grader.release import lessons


class ReleaseError(ValueError):
    """The course cannot be released from here, or not into the place asked for."""


def is_checkout(root: Path) -> bool:
    return (root / ".git").exists() and shutil.which("git") is not None


def listed(root: Path = sources.ROOT) -> list[str]:
    """The course's files, as paths relative to ``root`` with ``/``, sorted."""
    if is_checkout(root):
        names = _git(root, "ls-files", "-z", "--cached").decode().split("\0")
    elif (root / "pyproject.toml").is_file():
        names = _unignored(root)
    else:
        raise ReleaseError(f"{root} is an installed copy of the course, not its source folder (a git "
                           "checkout or an unpacked release, with pyproject.toml): release from that")
    return sorted(name for name in names if name and (root / name).is_file())  # a file deleted but tracked: gone


def untracked(root: Path = sources.ROOT) -> list[str]:
    """The files of a checkout that git neither tracks nor ignores, which a release leaves out."""
    if not is_checkout(root):
        return []
    return sorted(filter(None, _git(root, "ls-files", "-z", "--others", "--exclude-standard").decode().split("\0")))


def contents() -> dict[str, Path | bytes]:
    """{path in a release: the course's file to copy, or the bytes to write}: every listed
    file, ``lessons/`` as the generator writes it, each notebook as committed."""
    found: dict[str, Path | bytes] = {name: sources.ROOT / name for name in listed()
                                      if not name.startswith("lessons/")}
    found.update({f"lessons/{name}": text.encode() for name, text in lessons.lessons().items()})
    for name in found:
        if name.endswith(".ipynb"):
            found[name] = committed(name) or found[name]
    return dict(sorted(found.items()))


def committed(name: str, root: Path = sources.ROOT) -> bytes | None:
    """A file's bytes at git's HEAD (None outside a checkout, or where HEAD has no such file)."""
    if not is_checkout(root):
        return None
    shown = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=root, capture_output=True, timeout=60)
    return shown.stdout if shown.returncode == 0 else None


def outside(path: Path, what: str) -> Path:
    """``path``, resolved, refused where it lies inside the course's folder: a later release
    of that folder would copy it (in a folder without git, every file not ignored is released)."""
    path = path.resolve()
    if path.is_relative_to(sources.ROOT):
        raise ReleaseError(f"{path} is inside the course's folder ({sources.ROOT}); write {what} "
                           "outside it, where no release of the course can pick it up")
    return path


def _git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True, timeout=60).stdout


def _unignored(root: Path) -> list[str]:
    """Every file below ``root`` that the patterns of its ``.gitignore`` do not name (the plain
    patterns a course's ``.gitignore`` holds: no negation), ``.git`` left out."""
    ignore = root / ".gitignore"
    patterns = [line.strip() for line in (ignore.read_text().splitlines() if ignore.is_file() else [])
                if line.strip() and not line.startswith(("#", "!"))]
    found = []
    for folder, folders, files in os.walk(root):
        here = Path(folder).relative_to(root).parts
        folders[:] = [name for name in folders if name != ".git" and not _ignored([*here, name], patterns, True)]
        found += ["/".join([*here, name]) for name in files if not _ignored([*here, name], patterns, False)]
    return found


def _ignored(parts: list[str], patterns: list[str], is_folder: bool) -> bool:
    """Whether a path (its ``parts``) is named by a pattern: one with a ``/`` before its end
    matches the path from the top, one without matches its last name; ``name/`` names folders
    only. The walk never enters an ignored folder, so the last name is the one to test."""
    for pattern in patterns:
        if pattern.endswith("/") and not is_folder:
            continue
        anchored = "/" in pattern.rstrip("/")
        if fnmatch.fnmatchcase("/".join(parts) if anchored else parts[-1], pattern.strip("/")):
            return True
    return False
