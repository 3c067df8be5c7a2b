"""The process that runs learner code: ``python -m grader.runner``, started by the decider.

It runs each exercise's check as it is written, calling the learner's functions, and
sends over a dedicated pipe, one JSON line at a time, everything the check learnt from
the learner's code: each function it looked up, each call's result (or the Stop that
ended it) with what the observers saw (grader/observation.py), in order. It decides
nothing: the decider runs the same check on these records, without the learner's code,
and makes the verdict (grader/decider.py). What the learner's code prints goes to a
file per exercise, whose head the decider attaches to the verdict.
"""
import argparse
import json
import os
import resource
import signal
import sys
import traceback
import warnings
from pathlib import Path

OUTPUT_LIMIT_BYTES = 32 * 2**20  # a flood of prints fails the write instead of filling the disk
SHOWN_OUTPUT_CHARS = 1500


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--outdir", type=Path, required=True)
    parser.add_argument("--grading", action="store_true",
                        help="refuse imports of the reference package `solutions` from learner code")
    parser.add_argument("--import-root", type=Path, default=None,
                        help="import the implementation from this folder before anywhere else")
    parser.add_argument("exercises", nargs="+")
    args = parser.parse_args()
    channel = os.fdopen(args.fd, "w", buffering=1)
    os.set_inheritable(args.fd, False)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES))

    import importlib

    import torch  # imported after the limits, so they cover everything below

    from grader import exercises, observation

    for exercise_id in args.exercises:  # the course's code, with the reference it uses, first
        importlib.import_module(exercises.get(exercise_id).check)
    if args.import_root:  # after the course's own modules: a submission cannot replace them
        sys.path.insert(0, str(args.import_root))
    torch.set_num_threads(1)  # tiny models: threads cost more than they give

    def send(message: dict) -> None:
        channel.write(json.dumps(message, allow_nan=False) + "\n")

    for exercise_id in args.exercises:
        exercise = exercises.get(exercise_id)
        send({"start": exercise_id})
        with redirected_output(args.outdir / f"{exercise_id}.out"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with observation.check_scope(observation.RECORD):
                run_recorded(exercise, args.impl, args.seed, send, args.grading)
        send({"end": exercise_id})
    channel.close()


def run_recorded(exercise, impl: str, seed: int, send, grading: bool) -> None:
    """Import ``impl`` and run the check, sending what it learns; a failed import is sent
    as ``load_error`` (the decider words the verdict)."""
    from grader import harness, implementation

    try:
        if grading:
            refuse_reference_imports()
        module = implementation.load(impl, exercise.module)
    except SyntaxError as exc:
        send({"load_error": {"kind": "syntax", "file": str(exc.filename), "line": exc.lineno or 0,
                             "message": str(exc.msg)}})
        return
    except implementation.ImplementationNotFound as exc:
        send({"load_error": {"kind": "missing", "message": str(exc)}})
        return
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        send({"load_error": {"kind": "raised", "message": f"{type(exc).__name__}: {exc}",
                             "frame": harness._learner_frame(exc), "traceback": traceback.format_exc()}})
        return
    try:
        harness.checked(harness.RecordingCheckRun(exercise, module, seed, send))
    except Exception:  # the check's own code, handed an object that breaks it
        send({"crashed": traceback.format_exc()[-3000:]})


def refuse_reference_imports() -> None:
    """In grading mode the learner's code may not import ``solutions``: the check has
    imported what it needs already, so a later import can only be the learner's."""
    for name in [n for n in sys.modules if n == "solutions" or n.startswith("solutions.")]:
        del sys.modules[name]  # the course's modules keep theirs; a new import asks the blocker
    sys.meta_path.insert(0, ReferenceBlocker())


class ReferenceBlocker:
    """A meta path finder that refuses ``solutions`` with a message saying why."""

    def find_spec(self, name, path=None, target=None):
        if name == "solutions" or name.startswith("solutions."):
            raise ImportError(f"`import {name}` is refused while grading: submissions may not "
                              "use the course's reference implementation")
        return None


class redirected_output:
    """Send file descriptors 1 and 2 (Python and C prints alike) to ``path`` for a while."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        sys.stdout.flush(), sys.stderr.flush()
        self.saved = os.dup(1), os.dup(2)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(fd, 1), os.dup2(fd, 2)
        os.close(fd)

    def __exit__(self, *exc):
        try:
            sys.stdout.flush(), sys.stderr.flush()
        except OSError:
            pass  # the output limit was reached; the file already says enough
        os.dup2(self.saved[0], 1), os.dup2(self.saved[1], 2)
        os.close(self.saved[0]), os.close(self.saved[1])


def read_head(path: Path) -> str:
    """The first characters of a captured output, with a note of how much was cut."""
    if not path.exists():
        return ""
    size = path.stat().st_size
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(SHOWN_OUTPUT_CHARS)
    if size > len(head.encode()):
        head += f"\n... ({size - len(head.encode())} more bytes not shown)"
    return head.rstrip()


if __name__ == "__main__":
    main()
