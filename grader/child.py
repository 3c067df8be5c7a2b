"""The process that runs learner code: ``python -m grader.child``, started by isolation.py.

Each verdict goes to the parent over a dedicated pipe as one JSON line; the parent trusts
nothing else (not the exit code, not stdout). What the learner's code prints goes to a
file per exercise, whose head is attached to the verdict.
"""
import argparse
import json
import os
import resource
import signal
import sys
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
    parser.add_argument("exercises", nargs="+")
    args = parser.parse_args()
    channel = os.fdopen(args.fd, "w", buffering=1)
    os.set_inheritable(args.fd, False)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT_BYTES, OUTPUT_LIMIT_BYTES))

    import torch  # imported after the limits, so they cover everything below

    from grader import exercises
    from grader.harness import run_check

    torch.set_num_threads(1)  # tiny models: threads cost more than they give
    for exercise_id in args.exercises:
        exercise = exercises.get(exercise_id)
        channel.write(json.dumps({"start": exercise_id}) + "\n")
        output_path = args.outdir / f"{exercise_id}.out"
        with redirected_output(output_path), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdict = run_check(exercise, args.impl, args.seed)
        verdict.output = read_head(output_path)
        channel.write(json.dumps({"verdict": verdict.to_dict()}) + "\n")
    channel.close()


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
