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
import traceback

from grader import implementation
from grader.checks.harness import CheckRun, checked, learner_frame
from grader.decider.replay import ReplayCheckRun
from grader.exercises import Exercise
from grader.observers import observation
from grader.runner.record import RecordingCheckRun
from grader.verdict import ERROR, Verdict


def replayed(exercise: Exercise, impl: str, seed: int) -> Verdict:
    """The verdict the decider gives on the records of ``impl``'s run of the check."""
    records: list[str] = []
    try:
        module = implementation.load(impl, exercise.module)
    except BaseException:  # what an import failure gives is the runner's, tested apart
        return run_check(exercise, impl, seed)
    with observation.check_scope(observation.RECORD):
        checked(RecordingCheckRun(
            exercise, module, seed, lambda message: records.append(json.dumps(message, allow_nan=False))))
    pending = iter(records)
    with observation.check_scope(observation.REPLAY):
        return checked(ReplayCheckRun(exercise, seed, lambda: json.loads(next(pending))))


def run_check(exercise: Exercise, impl: str, seed: int) -> Verdict:
    """Import ``impl`` and run the exercise's check in this process."""
    start = time.perf_counter()
    try:
        module = implementation.load(impl, exercise.module)
    except SyntaxError as exc:
        verdict = Verdict(exercise.id, ERROR, f"your code has a syntax error in {exc.filename}, "
                          f"line {exc.lineno}: {exc.msg}. Fix it, then check again.", seed)
    except implementation.ImplementationNotFound as exc:
        verdict = Verdict(exercise.id, ERROR, str(exc), seed)
    except BaseException as exc:  # SystemExit or KeyboardInterrupt at import time too
        frame = learner_frame(exc)
        verdict = Verdict(exercise.id, ERROR, f"importing `{impl}` failed with "
                          f"{type(exc).__name__}: {exc}{frame}. Code at the top level of a "
                          "module runs on import: keep it to definitions.", seed,
                          traceback=traceback.format_exc())
    else:
        with observation.check_scope(observation.DIRECT):
            verdict = checked(CheckRun(exercise, module, seed))
    verdict.seconds = time.perf_counter() - start
    return verdict
