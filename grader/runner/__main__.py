"""``python -m grader.runner``: the runner process (see grader/runner/__init__.py)."""
import argparse
import json
import os
import resource
import signal
import sys
import warnings
from pathlib import Path

OUTPUT_LIMIT_BYTES = 32 * 2**20  # a flood of prints fails the write instead of filling the disk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--impl", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--outdir", type=Path, required=True)
    parser.add_argument("--grading", action="store_true",
                        help="refuse the reference's own functions of the exercise being graded")
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

    from grader import exercises
    from grader.observers import observation
    from grader.runner.record import redirected_output, run_recorded
    from grader.runner.reference import ReferenceGate, ReferenceReads

    for exercise_id in args.exercises:  # the course's code, with the reference it uses, first
        importlib.import_module(exercises.get(exercise_id).check)
    gate = ReferenceGate() if args.grading else None  # imports the whole reference first
    reads = ReferenceReads()
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
                run_recorded(exercise, args.impl, args.seed, send, gate)
        send({"end": exercise_id, "reference_opened": reads.taken()})
    channel.close()


if __name__ == "__main__":
    main()
