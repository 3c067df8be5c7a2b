"""Points earned: a verdict scored under the grading config (grader/release/grading_config.py:
the points per exercise, and partial credit or all or nothing)."""
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from grader import exercises
from grader.release import grading_config
from grader.release.grading_config import FRACTION, ConfigError  # noqa: F401 - raised by load
from grader.verdict import ERROR, FAILED, PASSED, Verdict


@dataclass(frozen=True)
class Scoring(grading_config.GradingConfig):
    def worth(self, exercise_id: str) -> float:
        return self.points.get(exercise_id, 0.0)

    def earned(self, verdict: Verdict) -> float:
        """The points ``verdict`` earns. Passed: all. Failed or error, under partial credit: the
        share of the properties a complete run of its check evaluates (``complete_properties``)
        that were evaluated and held, never all of them: a check stopped early (the learner's
        code raised, changed its input or returned what the check cannot go on with) leaves the
        rest unevaluated, and an unevaluated property counts as not held. Not started and not
        defined earn nothing."""
        worth = self.worth(verdict.exercise)
        if verdict.status == PASSED:
            return worth
        if verdict.status not in (FAILED, ERROR) or self.partial_credit != FRACTION:
            return 0.0
        held = max(0, verdict.properties - len(verdict.findings))
        complete = max(complete_properties(verdict.exercise), verdict.properties)
        return round(worth * min(held, complete - 1) / complete, 4) if complete > 0 else 0.0


def complete_properties(exercise_id: str) -> int:
    """The properties a complete run of ``exercise_id``'s check evaluates, as the reference's
    run evaluates them (``Exercise.properties``; the notebooks' check cells tie the two); 0 for
    an id the course does not know (a row of an older gradebook)."""
    exercise = exercises.BY_ID.get(exercise_id)
    return exercise.properties if exercise else 0


def load(path: Path | None, exercise_ids: list[str], graded_before: Iterable[str] = ()) -> Scoring:
    """The scoring of ``exercise_ids`` under the config at ``path`` (None: the defaults), each
    worth what it is worth in a grading of these and ``graded_before`` together (the class's
    exercises already in the CSVs a regrade merges into: regraded alone, an exercise sharing
    its function's point would otherwise be worth the whole point); raises ConfigError naming
    what is wrong."""
    together = [*exercise_ids, *(e for e in dict.fromkeys(graded_before) if e not in exercise_ids
                                 and e in exercises.BY_ID)]
    config = grading_config.load(path, together)
    points = {e: config.points[e] for e in exercise_ids}
    return Scoring(points, config.partial_credit, config.visibility, config.draws)


def shown(points: float) -> str:
    """Points as written: up to 4 decimals, no trailing zeros (2, 0.5, 0.3333, 1000.125)."""
    return f"{points:.4f}".rstrip("0").rstrip(".")
