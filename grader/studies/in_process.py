"""Checks run in this same process, for the course's own tests and studies.

``run_check`` imports the implementation and runs the check on it directly: the fastest,
for power studies over thousands of runs. ``replayed`` gives the decider's verdict: it
runs a check once recording (calling the implementation, as the runner does), then once
replaying those records, JSON-encoded as the pipe carries them (as the decider does), so
the tests see the decider's decision on every mutant and variant without starting a
process for each.
"""
import json
import time

from grader import implementation
from grader.checks.harness import CheckRun, checked
from grader.decider.replay import ReplayCheckRun
from grader.exercises import Exercise
from grader.runner.record import RecordingCheckRun, load_error
from grader.verdict import Verdict, load_error_verdict


def replayed(exercise: Exercise, impl: str, seed: int) -> Verdict:
    """The verdict the decider gives on the records of ``impl``'s run of the check."""
    try:
        module = implementation.load(impl, exercise.module)
    except BaseException as exc:  # the runner's record of it, worded as the decider words it
        return load_error_verdict(exercise.id, seed, load_error(exc))
    pending = iter(recorded(exercise, module, seed))
    return checked(ReplayCheckRun(exercise, seed, lambda: json.loads(next(pending))))


def recorded(exercise: Exercise, module, seed: int) -> list[str]:
    """The records a runner sends for the check run on ``module``, JSON-encoded."""
    records: list[str] = []
    checked(RecordingCheckRun(
        exercise, module, seed, lambda message: records.append(json.dumps(message, allow_nan=False))))
    return records


def first_difference(exercise: Exercise, impl: str, seed: int) -> str | None:
    """Where two runs of the check on ``impl``, in this process, ask for different things:
    a check must call with the same arguments in the same order every time (the decider
    replays it and matches each call by index and digest), so any difference is a bug of
    the check, which the decider would report as a grader bug. None when there is none."""
    module = implementation.load(impl, exercise.module)
    runs = [[_request(json.loads(r)) for r in recorded(exercise, module, seed)] for _ in range(2)]
    for index, (first, second) in enumerate(zip(*runs)):
        if first != second:
            return f"record {index}: {first} the first time, {second} the second"
    if len(runs[0]) != len(runs[1]):
        return f"{len(runs[0])} records the first time, {len(runs[1])} the second"
    return None


def _request(record: dict) -> tuple:
    """What a record answers (the lookup or call, with its arguments' digest), not its result."""
    return tuple((key, record[key]) for key in ("start", "end", "function", "call", "digest") if key in record)


def run_check(exercise: Exercise, impl: str, seed: int) -> Verdict:
    """Import ``impl`` and run the exercise's check in this process."""
    start = time.perf_counter()
    try:
        module = implementation.load(impl, exercise.module)
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        verdict = load_error_verdict(exercise.id, seed, load_error(exc))
    else:
        verdict = checked(CheckRun(exercise, module, seed))
    verdict.seconds = time.perf_counter() - start
    return verdict
