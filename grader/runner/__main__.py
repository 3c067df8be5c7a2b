"""``python -m grader.runner``: the runner process (see grader/runner/__init__.py)."""
import argparse
import json
import os
import resource
import shutil
import signal
import sys
import warnings

OUTPUT_LIMIT_BYTES = 32 * 2**20  # a flood of prints fails the write instead of filling the disk
# memory of each process: its address space in the sandbox (RLIMIT_AS, which counts shared mappings;
# the reference's runners peak at 1.22 GiB, static_cache's compile included), its writable memory
# outside (RLIMIT_DATA: CUDA's address-space reservations, visible there, would pass any AS limit)
MEMORY_LIMIT_BYTES = 8 * 2**30
OPEN_FILES_LIMIT = 1024
CACHE_COPY = "/tmp/torchinductor"  # in the sandbox: the runner's own copy of the compile cache
SETUP_BYTES = 2**21  # the decider's one line on standard input (seeds, the reference's sources)


def main():
    args = arguments(sys.argv[1:])
    from grader import sources
    sources.course_alone()  # started with -P: nothing of the working folder's; this stops a PYTHONPATH's
    if args.compile_cache:  # before torch is imported, and before the limits (its files may be large)
        copy_compile_cache(*args.compile_cache)
    limit_resources(args.sandboxed, args.process_limit)  # before anything else runs: hard limits stay lowered
    setup = json.loads(sys.stdin.buffer.readline(SETUP_BYTES))  # never on the command line
    sys.stdin.close()
    run_checks(args.impl, args.grading, args.import_root, args.exercises, setup, args.fd)


def arguments(argv: list[str]) -> argparse.Namespace:
    """A runner's command line (a warm runner's child is given the one a cold runner would have)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", required=True)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--grading", action="store_true",
                        help="import solutions only from the sources on standard input, in which "
                             "the graded exercises' reference names are stubs; grade each exercise "
                             "on its own functions (the reference's stand in for the others')")
    parser.add_argument("--import-root", default=None,
                        help="import the implementation from this folder before anywhere else")
    parser.add_argument("--sandboxed", action="store_true",
                        help="limit the address space, not only the writable memory (no GPU is visible)")
    parser.add_argument("--process-limit", type=int, default=None,
                        help="in the sandbox: its processes and threads (counted per user namespace)")
    parser.add_argument("--compile-cache", nargs=2, default=None, metavar=("FOLDER", "LEFT_OUT"),
                        help="in the sandbox: the grading user's compile cache, read-only, to copy "
                             "but for its folders named LEFT_OUT")
    parser.add_argument("exercises", nargs="+")
    return parser.parse_args(argv)


def run_checks(impl: str, grading: bool, import_root: str | None, exercise_ids: list[str],
               setup: dict, fd: int) -> None:
    """Everything a runner does once its limits are set: the reference as sent installed
    (grading), the checks imported, then each exercise's check run on ``impl``, its records
    sent on descriptor ``fd`` (closed at the end). ``setup``: the decider's line (``seeds``:
    {exercise id: seed}; grading, ``reference``: {module name: source}). A cold runner
    (``main``) and a warm one's forked child (grader/runner/zygote.py) both end here."""
    seeds = setup["seeds"]
    channel = os.fdopen(fd, "w", buffering=1)
    os.set_inheritable(fd, False)

    import importlib

    import torch  # imported after the limits, so they cover everything below

    from grader import exercises, protocol
    from grader.implementation import Isolation
    from grader.runner.record import run_recorded
    from grader.runner.reference import ReferenceReads, SentReference

    if grading:  # before anything imports solutions: the checks hold only the stubs too
        SentReference(setup["reference"])
    for exercise_id in exercise_ids:  # the course's code first: a submission cannot replace it
        importlib.import_module(exercises.get(exercise_id).check)
    reads = ReferenceReads()
    if import_root:  # after the course's own modules: a submission cannot replace them
        sys.path.insert(0, import_root)
    torch.set_num_threads(1)  # tiny models: threads cost more than they give

    def send(message: dict) -> None:
        channel.write(json.dumps(message, allow_nan=False) + "\n")

    isolation = Isolation(impl, exercises) if grading else None  # each exercise on its own functions
    for exercise_id in exercise_ids:
        exercise = exercises.get(exercise_id)
        send(protocol.Start(exercise_id, printed()).record())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_recorded(exercise, impl, seeds[exercise_id], send, isolation)
        send(protocol.End(exercise_id, printed(), tuple(reads.taken())).record())
    channel.close()


def copy_compile_cache(folder: str, left_out: str) -> None:
    """The grading user's compile cache copied into this sandbox's /tmp, and used from there:
    what earlier compiles left is reused, what this runner compiles vanishes with it. A copy
    that does not fit (the cache grew since it was measured) is dropped: compiles start afresh."""
    try:
        shutil.copytree(folder, CACHE_COPY, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns(left_out))
    except OSError:
        shutil.rmtree(CACHE_COPY, ignore_errors=True)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = CACHE_COPY


def limit_resources(sandboxed: bool, processes: int | None) -> None:
    """Hard limits, which the learner's code cannot raise again: the size of any file it
    writes (its output included), its memory (``MEMORY_LIMIT_BYTES``), its open files, no
    core dumps, and ``processes`` (processes and threads, given in the sandbox, where they
    are counted per user namespace; the kernel never stops root's, so the decider counts
    them too: grader/decider/sandbox.py)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails with EFBIG instead
    memory = resource.RLIMIT_AS if sandboxed else resource.RLIMIT_DATA
    limits = [(resource.RLIMIT_FSIZE, OUTPUT_LIMIT_BYTES), (memory, MEMORY_LIMIT_BYTES),
              (resource.RLIMIT_NOFILE, OPEN_FILES_LIMIT), (resource.RLIMIT_CORE, 0)]
    if processes is not None:
        limits.append((resource.RLIMIT_NPROC, processes))
    for kind, value in limits:
        soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


def printed() -> int:
    """How many bytes the learner's code has printed so far (standard output and error share
    the decider's one file): where the decider starts and ends each exercise's output."""
    try:
        sys.stdout.flush(), sys.stderr.flush()
    except OSError:
        pass  # the output limit was reached: the output says enough
    try:
        return os.fstat(1).st_size
    except OSError:  # the learner's code closed it
        return 0


if __name__ == "__main__":
    main()
