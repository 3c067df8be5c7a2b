"""``grader grade``: grade a class's submissions, each in its own runner, for credit.

A submission is a directory holding a ``lessons/`` package (at its top or one level
down), or a zip of one; a folder of such submissions grades them all. Each is graded by a
decider process of its own, ``jobs`` at a time, which copies it (plain files only, within
limits) to a private folder removed afterwards; its runners import that copy's ``lessons``
in the sandbox, which hides every submission's original, behind the reference's gate (the
exercise being graded must be the learner's own: grader/runner/reference.py). Each
submission's draws come from seeds derived from the instructor's secret with HMAC, per
submission and exercise (``submission_seeds``): the secret never reaches a runner nor an output. A decider that
ends early, fails, or misses its deadline (``row_deadline``) costs only its own row. The
table, CSVs and results.json (grader/gradebook/) are written by this process after every
sandbox is gone.
"""
import hashlib
import hmac
import multiprocessing
import os
import shutil
import stat
import subprocess
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from grader import exercises
from grader.decider import GraderFilesChanged, run_isolated, sandbox
from grader.decider.channel import STARTUP_TIMEOUT
from grader.decider.run import END_MARGIN
from grader.verdict import ERROR, Verdict, printable

MAX_FILES = 2000  # a submission's files copied at most
MAX_BYTES = 64 * 2**20  # and their bytes
MAX_DEPTH = 32  # folders inside folders: a fixed bound, not the copying process's recursion limit
COPY_SECONDS = 60.0  # a submission's copy, and its decider's start (imports, the checks prepared)


class SubmissionError(ValueError):
    """A path that holds no submission."""


@dataclass
class Row:
    submission: str  # its key: the file name, ``.zip`` left out (``submissions``)
    verdicts: list[Verdict]
    seed: int | None = None  # the submission's seed (``submission_seed``), where the grader set it
    student: dict[str, str] = field(default_factory=dict)  # id, name, email from Gradescope's metadata


RESERVED = ("results.json",)  # keys that name what grading writes in a --gradescope folder
METADATA = "submission_metadata.json"  # Gradescope's, beside a submission's files: a folder holding
# it is one submission (grader/gradebook/roster.py reads it)
MAX_KEY = 200  # characters of a key: a folder of that name is written under --gradescope


def submissions(paths: list[str]) -> tuple[dict[str, Path], list[str]]:
    """({key: path}, refused) for the submissions ``paths`` name: each a submission itself (a
    zip, a folder with ``lessons/`` at its top, or one laid out as Gradescope's, with its
    METADATA), or a folder whose entries (folders and zips) are submissions, their ``lessons/``
    at their top or one level down. A key is the
    file's full name (a zip's less ``.zip``), made printable: ``jane.doe`` and ``jane.zzz`` are
    two. ``refused`` says, one message each, which were not taken and why: a hidden, reserved
    or too long name (``.``, ``..``, ``..zip``, ``results.json.zip``), or two that share a key
    (``alice/`` beside ``alice.zip``); the others are graded. Raises SubmissionError for a path
    that is missing or holds no submission."""
    named: dict[str, set[Path]] = {}
    for text in paths:
        path = Path(text)
        if not path.exists():
            raise SubmissionError(f"no file or folder at {printable(text, 300, True)!r}; expected a "
                                  "submission (a folder holding lessons/, or a zip of one) or a folder "
                                  "of submissions")
        if _is_zip(path) or (path / "lessons" / "__init__.py").is_file() or (path / METADATA).is_file():
            entries = [Path(os.path.abspath(path))]  # `grader grade .` names the folder it is in
        else:
            entries = sorted(p for p in path.iterdir() if p.is_dir() or _is_zip(p))
            if not entries:
                raise SubmissionError(f"{printable(text, 300, True)!r} holds no lessons/ package "
                                      "and no submissions (folders, or zips)")
        for entry in entries:
            named.setdefault(_key(entry), set()).add(Path(os.path.abspath(entry)))
    found, refused = {}, []
    for key, same in named.items():
        why = _refused_key(key) or (len(same) > 1 and f"they share the key {key!r}, and two submissions "
                                                      "of one name are an error: rename one")
        if why:
            shown = " and ".join(repr(printable(str(p), 300, True)) for p in sorted(same))
            refused.append(f"{shown}: not graded, {why}.")
        else:
            found[key] = same.pop()
    return found, refused


def _is_zip(path: Path) -> bool:
    return path.suffix.lower() == ".zip" and path.is_file()


def _key(path: Path) -> str:
    """A submission's key: its file name, a zip's less ``.zip``, each unprintable character escaped."""
    return printable(path.name[:-4] if _is_zip(path) else path.name, one_line=True)


def _refused_key(key: str) -> str:
    """Why ``key`` cannot name a submission's row and results folder, or ""."""
    if not key or key.startswith("."):
        return (f"its name {key!r} is empty or begins with '.' (a hidden file, or '.' or '..' once "
                "'.zip' is left out, which would write beside or above the output folder); rename it "
                "if it is a submission")
    if key in RESERVED:
        return f"its name {key!r} is what grading writes (results.json): rename it"
    if len(key) > MAX_KEY:
        return f"its name is longer than {MAX_KEY} characters"
    return ""


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
    MAX_FILES files and MAX_BYTES bytes, at most MAX_DEPTH folders deep (a zip is extracted;
    zipfile keeps every member inside ``into``). Raises SubmissionError naming what was refused."""
    budget = _Budget()
    if _is_zip(path):  # as ``submissions`` takes it: ``Bob.ZIP`` too
        with zipfile.ZipFile(path) as archive:
            for member in archive.infolist():
                if stat.S_ISLNK(member.external_attr >> 16):
                    raise SubmissionError(f"the zip holds a symbolic link, {member.filename}; "
                                          "submissions must hold plain files")
                budget.take(member.filename, member.file_size)
                if member.filename.rstrip("/").count("/") > MAX_DEPTH:
                    raise SubmissionError(_too_deep(member.filename))
            archive.extractall(into)
        return
    _copy_folder(path, into, budget, 0)


def _too_deep(name: str) -> str:
    """Why ``name``, a folder or a zip member of a submission, is refused for its depth."""
    return (f"{name} lies more than {MAX_DEPTH} folders deep in the submission; hand in the lessons/ "
            "folder alone")


def _copy_folder(source: Path, into: Path, budget: "_Budget", depth: int) -> None:
    if depth > MAX_DEPTH:
        raise SubmissionError(_too_deep(str(source)))
    into.mkdir(parents=True, exist_ok=True)
    for entry in os.scandir(source):
        target = into / entry.name
        if entry.is_symlink():
            raise SubmissionError(f"{entry.path} is a symbolic link; submissions must hold plain "
                                  "files (a link could point at any file of the grading machine)")
        if entry.is_dir(follow_symlinks=False):
            _copy_folder(Path(entry.path), target, budget, depth + 1)
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


def grade_one(name: str, path: Path, exercise_ids: list[str], seed: bytes, timeout: float | None,
              workdir: Path, sandboxed: bool, hidden: tuple[Path, ...], draws: int = 1) -> Row:
    """One submission's verdicts, decided in this process from a copy of it in ``workdir``;
    ``draws``: times their default samples the statistical checks draw (in each seed)."""
    # torch names its compile cache after the temporary folder the first time it needs one:
    # fix it to the grading user's first, so that runners get that cache, not an empty one
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(sandbox.compile_cache_folder())
    tempfile.tempdir = str(workdir)  # the runners' output files (unnamed) too: the caller removes it
    copy = workdir / "submission"
    try:
        copy_submission(path, copy)
    except (OSError, zipfile.BadZipFile, SubmissionError) as exc:
        return _error_row(name, exercise_ids, seed, f"the submission could not be read: {exc}", draws)
    root = lessons_root(copy)
    if root is None:
        return _error_row(name, exercise_ids, seed, "the submission holds no lessons/ package "
                                                    "(lessons/__init__.py)", draws)
    verdicts = list(run_isolated(exercise_ids, "lessons", submission_seeds(seed, name, exercise_ids, draws),
                                 check_limit(exercise_ids, timeout, draws), grading=True, import_root=root,
                                 sandboxed=sandboxed, hidden=hidden))
    return Row(name, verdicts)


def submission_seed(secret: bytes, name: str) -> int:
    """A submission's seed (63 bits): HMAC-SHA256 of its key under the instructor's secret
    (grader/release/secret.py), so that it tells nothing of the secret nor of another
    submission's seed. The gradebook shows it; ``exercise_seed`` turns it into each verdict's."""
    if len(secret) < 16:  # a short key is the brute-forced seed of old: never accept one
        raise ValueError("the grading secret must be at least 16 bytes (128 bits)")
    digest = hmac.new(secret, b"submission\0" + name.encode("utf-8", "surrogatepass"), "sha256").digest()
    return int.from_bytes(digest[:8], "little") >> 1


def exercise_seed(submission: int, exercise: str) -> int:
    """The seed of one exercise's draws (32 bits), from its submission's seed: the verdict
    prints it, and ``grader check EXERCISE --seed N`` redraws the same values. It tells nothing
    of the submission's seed (2^63 candidates) nor of the secret behind it."""
    return int.from_bytes(hashlib.sha256(f"{submission}/{exercise}".encode()).digest()[:4], "little")


def submission_seeds(secret: bytes, name: str, exercise_ids: list[str], draws: int = 1) -> dict[str, int]:
    """{exercise id: seed} for one submission, derived from the instructor's ``secret``
    (``submission_seed``, then ``exercise_seed``), each carrying ``draws``, the times their
    default samples the checks draw (``exercises.with_draws``: 1 leaves the seed as it is)."""
    seed = submission_seed(secret, name)
    return {e: exercises.with_draws(exercise_seed(seed, e), draws) for e in exercise_ids}


def check_limit(exercise_ids: list[str], timeout: float | None, draws: int = 1) -> float | None:
    """Seconds each check may run: ``timeout`` where given; else each exercise's own limit (None),
    or, drawing ``draws`` times the samples, that many times the longest one."""
    if timeout or draws == 1:
        return timeout
    return draws * max(exercises.get(e).time_limit for e in exercise_ids)


def row_deadline(exercise_ids: list[str], timeout: float | None) -> float:
    """Seconds a submission's decider may take at most: its copy, then each check's limit
    with a runner's start-up and end, three times (each exercise has a runner, one more when
    its replay did not match the runner's records, ``Runner.rechecked``, and one more when it
    failed on statistical tests alone and is decided again on fresh draws)."""
    return COPY_SECONDS + 3 * sum((timeout or exercises.get(e).time_limit) + STARTUP_TIMEOUT + END_MARGIN
                                  for e in exercise_ids)


def _error_row(name: str, exercise_ids: list[str], seed: bytes, summary: str, draws: int = 1) -> Row:
    seeds = submission_seeds(seed, name, exercise_ids, draws)  # the secret itself is never shown
    return Row(name, [Verdict(e, ERROR, summary, seeds[e]) for e in exercise_ids])


def _decided_apart(name, path, exercise_ids, seed, timeout, sandboxed, hidden, draws=1) -> Row:
    """``grade_one`` in a process of its own (spawned: a forked copy of a process that runs
    torch can deadlock): if anything ends that process, or it misses ``row_deadline``, only
    this row is an error. Its folder is removed here, however it ended."""
    workdir = Path(tempfile.mkdtemp(prefix="grade-"))
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_send_row, daemon=True, args=(
        send, name, path, exercise_ids, seed, timeout, workdir, sandboxed, hidden, draws))
    deadline = row_deadline(exercise_ids, check_limit(exercise_ids, timeout, draws))
    try:
        process.start()
        send.close()
        if not receive.poll(deadline):
            return _error_row(name, exercise_ids, seed, draws=draws, summary=(
                f"grading this submission took longer than its limit ({deadline:.0f} s: every check's "
                "limit with a runner's start), so it was stopped; the other submissions were graded as usual."))
        try:
            outcome = receive.recv()
        except (EOFError, OSError):
            process.join(timeout=10)
            return _error_row(name, exercise_ids, seed, draws=draws, summary=(
                f"the grading process of this submission ended (exit code {process.exitcode}) before its "
                "verdicts were decided; the other submissions were graded as usual."))
        if isinstance(outcome, GraderFilesChanged):
            raise outcome
        if type(outcome) is not Row or not all(type(v) is Verdict for v in outcome.verdicts):
            return _error_row(name, exercise_ids, seed, draws=draws, summary=(
                f"the grading process of this submission sent {type(outcome).__name__}, not its verdicts."))
        return outcome
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.kill()
            process.join(timeout=10)
        remove_tree(workdir)


DECIDER_MEMORY_BYTES = 4 * 2**30  # a decider's writable memory: the reference's hold 0.58 GiB at most


def _send_row(send, name, path, exercise_ids, seed, timeout, workdir, sandboxed, hidden, draws) -> None:
    """In the spawned decider: ``grade_one``'s row sent on ``send``, this process importing the
    course's packages alone and holding at most DECIDER_MEMORY_BYTES of writable memory (a
    soft limit: its runners set their own)."""
    import resource

    from grader import sources
    sources.course_alone()
    resource.setrlimit(resource.RLIMIT_DATA, (DECIDER_MEMORY_BYTES, resource.getrlimit(resource.RLIMIT_DATA)[1]))
    try:
        send.send(grade_one(name, path, exercise_ids, seed, timeout, workdir, sandboxed, hidden, draws))
    except GraderFilesChanged as exc:
        send.send(GraderFilesChanged(f"{exc} The submission being graded: {name}."))
    except MemoryError:
        send.send(_error_row(name, exercise_ids, seed, draws=draws, summary="deciding this submission's verdicts took more "
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


def grade(found: dict[str, Path], exercise_ids: list[str], seed: bytes, jobs: int,
          timeout: float | None = None, sandboxed: bool = True, on_row=None, draws: int = 1) -> list[Row]:
    """The rows of the submissions ``found`` ({name: path}), in that order; ``on_row(row)``
    as each is decided; ``draws``: times their default samples the statistical checks draw.
    Every runner's sandbox hides every submission's original. Raises
    GraderFilesChanged, naming the submissions being graded then, if a course file changed."""
    hidden = tuple(found.values())
    rows: dict[str, Row] = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_decided_apart, name, path, exercise_ids, seed, timeout, sandboxed,
                               hidden, draws): name for name, path in found.items()}
        try:
            for future in as_completed(futures):
                name = futures[future]
                rows[name] = _row(future, name, exercise_ids, seed, draws)
                if on_row:
                    on_row(rows[name])
        except GraderFilesChanged as exc:
            beside = [futures[f] for f in futures if f.running()]
            for future in futures:
                future.cancel()
            raise GraderFilesChanged(f"{exc}" + (f" Graded beside it: {', '.join(beside)}." if beside else ""))
    return [rows[name] for name in found]


def _row(future, name: str, exercise_ids: list[str], seed: bytes, draws: int = 1) -> Row:
    """A decided submission's row; an error row if its grading raised anything but a changed
    course file (which stops the class)."""
    try:
        return future.result()
    except GraderFilesChanged:
        raise
    except Exception as exc:
        return _error_row(name, exercise_ids, seed, draws=draws, summary=(
            f"grading this submission failed in the grader ({type(exc).__name__}: {str(exc)[:300]}); "
            "the other submissions were graded as usual."))
