"""``grader grade``: grade a class's submissions, each in its own runner, for credit.

A submission is a directory holding a ``lessons/`` package (at its top or one level
down), or a zip of one; a folder of such submissions grades them all. Each is graded by a
decider process of its own, ``jobs`` at a time, which copies it (plain files only, within
limits) to a private folder removed afterwards; its runners import that copy's ``lessons``
in the sandbox, which hides every submission's original, behind the reference's gate (the
exercise being graded must be the learner's own: grader/runner/reference.py). Each
submission's draws come from seeds derived from the instructor's, per submission and
exercise (``submission_seeds``): the private seed never reaches a runner. A decider that
ends early, fails, or misses its deadline (``row_deadline``) costs only its own row. The
table, CSV and results.json (grader/gradebook.py) are written by this process after every
sandbox is gone.
"""
import hashlib
import multiprocessing
import os
import shutil
import stat
import subprocess
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from grader import exercises
from grader.decider import GraderFilesChanged, run_isolated, sandbox
from grader.decider.channel import STARTUP_TIMEOUT
from grader.decider.run import END_MARGIN
from grader.verdict import ERROR, Verdict

MAX_FILES = 2000  # a submission's files copied at most
MAX_BYTES = 64 * 2**20  # and their bytes
COPY_SECONDS = 60.0  # a submission's copy, and its decider's start (imports, the checks prepared)


class SubmissionError(ValueError):
    """A path that holds no submission."""


@dataclass
class Row:
    submission: str
    verdicts: list[Verdict]


def submissions(paths: list[str]) -> dict[str, Path]:
    """{name: path} of the submissions ``paths`` name: each a submission itself (a zip, or
    a folder with ``lessons/`` at its top), or a folder whose entries (folders and zips)
    are submissions, their ``lessons/`` at their top or one level down."""
    found: dict[str, Path] = {}
    for text in paths:
        path = Path(text)
        if not path.exists():
            raise SubmissionError(f"no file or folder at {text!r}; expected a submission (a folder "
                                  "holding lessons/, or a zip of one) or a folder of submissions")
        if path.suffix == ".zip" or (path / "lessons" / "__init__.py").is_file():
            found[path.stem] = path
            continue
        entries = sorted(p for p in path.iterdir() if p.is_dir() or p.suffix == ".zip")
        if not entries:
            raise SubmissionError(f"{text!r} holds no lessons/ package and no submissions")
        found.update((entry.stem, entry) for entry in entries)
    return found


def lessons_root(path: Path) -> Path | None:
    """The folder whose ``lessons/`` package a submission holds, if it holds one."""
    if not path.is_dir():
        return None
    for root in [path, *sorted(p for p in path.iterdir() if p.is_dir())]:
        if (root / "lessons" / "__init__.py").is_file():
            return root
    return None


def copy_submission(path: Path, into: Path) -> None:
    """A private copy of a submission in ``into``: plain files and folders only, at most
    MAX_FILES files and MAX_BYTES bytes (a zip is extracted; zipfile keeps every member
    inside ``into``). Raises SubmissionError naming what was refused."""
    budget = _Budget()
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                if stat.S_ISLNK(member.external_attr >> 16):
                    raise SubmissionError(f"the zip holds a symbolic link, {member.filename}; "
                                          "submissions must hold plain files")
                budget.take(member.filename, member.file_size)
            archive.extractall(into)
        return
    _copy_folder(path, into, budget)


def _copy_folder(source: Path, into: Path, budget: "_Budget") -> None:
    into.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(source):
        target = into / entry.name
        if entry.is_symlink():
            raise SubmissionError(f"{entry.path} is a symbolic link; submissions must hold plain "
                                  "files (a link could point at any file of the grading machine)")
        if entry.is_dir(follow_symlinks=False):
            _copy_folder(Path(entry.path), target, budget)
        elif entry.is_file(follow_symlinks=False):
            budget.take(entry.path, entry.stat(follow_symlinks=False).st_size)
            shutil.copyfile(entry.path, target, follow_symlinks=False)
        else:
            raise SubmissionError(f"{entry.path} is not a plain file (a device, pipe or socket); "
                                  "submissions must hold plain files")


class _Budget:
    """Counts a submission's files and bytes against MAX_FILES and MAX_BYTES."""

    def __init__(self):
        self.files, self.bytes = 0, 0

    def take(self, name: str, size: int) -> None:
        self.files, self.bytes = self.files + 1, self.bytes + size
        if self.files > MAX_FILES or self.bytes > MAX_BYTES:
            raise SubmissionError(f"the submission is larger than the grader copies (at {name}: "
                                  f"over {MAX_FILES} files or {MAX_BYTES // 2**20} MB); hand in "
                                  "the lessons/ folder alone")


def grade_one(name: str, path: Path, exercise_ids: list[str], seed: int, timeout: float | None,
              workdir: Path, sandboxed: bool, hidden: tuple[Path, ...]) -> Row:
    """One submission's verdicts, decided in this process from a copy of it in ``workdir``."""
    # torch names its compile cache after the temporary folder the first time it needs one:
    # fix it to the grading user's first, so that runners get that cache, not an empty one
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(sandbox.compile_cache_folder())
    tempfile.tempdir = str(workdir)  # the runners' output files (unnamed) too: the caller removes it
    copy = workdir / "submission"
    try:
        copy_submission(path, copy)
    except (OSError, zipfile.BadZipFile, SubmissionError, RecursionError) as exc:
        return _error_row(name, exercise_ids, seed, f"the submission could not be read: {exc}")
    root = lessons_root(copy)
    if root is None:
        return _error_row(name, exercise_ids, seed, "the submission holds no lessons/ package "
                                                    "(lessons/__init__.py)")
    verdicts = list(run_isolated(exercise_ids, "lessons", submission_seeds(seed, name, exercise_ids),
                                 timeout, grading=True, import_root=root, sandboxed=sandboxed,
                                 hidden=hidden))
    return Row(name, verdicts)


def submission_seeds(seed: int, name: str, exercise_ids: list[str]) -> dict[str, int]:
    """{exercise id: seed} for one submission, derived from the instructor's ``seed``: each
    verdict shows its own (``grader check EXERCISE --seed N`` redraws it), and neither it nor
    the runner's seeds tell the private one or another submission's."""
    return {e: int.from_bytes(hashlib.sha256(f"{seed}/{name}/{e}".encode()).digest()[:4], "little")
            for e in exercise_ids}


def row_deadline(exercise_ids: list[str], timeout: float | None) -> float:
    """Seconds a submission's decider may take at most: its copy, then each check's limit
    with a runner's start-up and end, twice (each exercise may need a runner of its own,
    and one more when it used a reference step its first runner withheld)."""
    return COPY_SECONDS + 2 * sum((timeout or exercises.get(e).time_limit) + STARTUP_TIMEOUT + END_MARGIN
                                  for e in exercise_ids)


def _error_row(name: str, exercise_ids: list[str], seed: int, summary: str) -> Row:
    return Row(name, [Verdict(e, ERROR, summary, seed) for e in exercise_ids])


def _decided_apart(name, path, exercise_ids, seed, timeout, sandboxed, hidden) -> Row:
    """``grade_one`` in a process of its own (spawned: a forked copy of a process that runs
    torch can deadlock): if anything ends that process, or it misses ``row_deadline``, only
    this row is an error. Its folder is removed here, however it ended."""
    workdir = Path(tempfile.mkdtemp(prefix="grade-"))
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_send_row, daemon=True, args=(
        send, name, path, exercise_ids, seed, timeout, workdir, sandboxed, hidden))
    deadline = row_deadline(exercise_ids, timeout)
    try:
        process.start()
        send.close()
        if not receive.poll(deadline):
            return _error_row(name, exercise_ids, seed, f"grading this submission took longer than "
                              f"its limit ({deadline:.0f} s: every check's limit with a runner's "
                              "start), so it was stopped; the other submissions were graded as usual.")
        try:
            outcome = receive.recv()
        except (EOFError, OSError):
            process.join(timeout=10)
            return _error_row(name, exercise_ids, seed, "the grading process of this submission "
                              f"ended (exit code {process.exitcode}) before its verdicts were "
                              "decided; the other submissions were graded as usual.")
        if isinstance(outcome, GraderFilesChanged):
            raise outcome
        if type(outcome) is not Row or not all(type(v) is Verdict for v in outcome.verdicts):
            return _error_row(name, exercise_ids, seed, f"the grading process of this submission "
                              f"sent {type(outcome).__name__}, not its verdicts.")
        return outcome
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join(timeout=10)
        remove_tree(workdir)


DECIDER_MEMORY_BYTES = 4 * 2**30  # a decider's writable memory: the reference's deciders peak at 0.6 GB


def _send_row(send, name, path, exercise_ids, seed, *args) -> None:
    """In the spawned decider: ``grade_one``'s row sent on ``send``, this process importing the
    course's packages alone and holding at most DECIDER_MEMORY_BYTES of writable memory (a
    soft limit: its runners set their own)."""
    import resource

    from grader import sources
    sources.course_alone()
    resource.setrlimit(resource.RLIMIT_DATA, (DECIDER_MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_DATA)[1]))
    try:
        send.send(grade_one(name, path, exercise_ids, seed, *args))
    except GraderFilesChanged as exc:
        send.send(GraderFilesChanged(f"{exc} The submission being graded: {name}."))
    except MemoryError:
        send.send(_error_row(name, exercise_ids, seed, "deciding this submission's verdicts took more "
                             f"than {DECIDER_MEMORY_BYTES // 2**30} GB of memory, so it was stopped; what "
                             "its code sent the grader is far larger than correct code sends."))


def remove_tree(path: Path) -> None:
    """Remove a folder and everything in it, however deep or unreadable (``rm -rf`` walks it
    without recursing in Python); never raises: a folder left behind costs disk, not a class."""
    try:
        subprocess.run(["chmod", "-R", "u+rwx", "--", str(path)], capture_output=True, timeout=300)
        subprocess.run(["rm", "-rf", "--", str(path)], capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        pass


def grade(found: dict[str, Path], exercise_ids: list[str], seed: int, jobs: int,
          timeout: float | None = None, sandboxed: bool = True, on_row=None) -> list[Row]:
    """The rows of the submissions ``found`` ({name: path}), in that order; ``on_row(row)``
    as each is decided. Every runner's sandbox hides every submission's original. Raises
    GraderFilesChanged, naming the submissions being graded then, if a course file changed."""
    hidden = tuple(found.values())
    rows: dict[str, Row] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_decided_apart, name, path, exercise_ids, seed, timeout, sandboxed,
                               hidden): name for name, path in found.items()}
        try:
            for future in as_completed(futures):
                name = futures[future]
                rows[name] = _row(future, name, exercise_ids, seed)
                if on_row:
                    on_row(rows[name])
        except GraderFilesChanged as exc:
            beside = [futures[f] for f in futures if f.running()]
            for future in futures:
                future.cancel()
            raise GraderFilesChanged(f"{exc}" + (f" Graded beside it: {', '.join(beside)}." if beside else ""))
    return [rows[name] for name in found]


def _row(future, name: str, exercise_ids: list[str], seed: int) -> Row:
    """A decided submission's row; an error row if its grading raised anything but a changed
    course file (which stops the class)."""
    try:
        return future.result()
    except GraderFilesChanged:
        raise
    except Exception as exc:
        return _error_row(name, exercise_ids, seed, f"grading this submission failed in the grader "
                          f"({type(exc).__name__}: {str(exc)[:300]}); the other submissions were "
                          "graded as usual.")
