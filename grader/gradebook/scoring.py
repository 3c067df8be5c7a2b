"""Points earned: a verdict scored under the grading config (grader/release/grading_config.py:
the points per exercise, and partial credit or all or nothing)."""
from dataclasses import dataclass
from pathlib import Path

from grader.release import grading_config
from grader.release.grading_config import FRACTION, ConfigError  # noqa: F401 - raised by load
from grader.verdict import FAILED, PASSED, Verdict


@dataclass(frozen=True)
class Scoring(grading_config.GradingConfig):
    def worth(self, exercise_id: str) -> float:
        return self.points.get(exercise_id, 0.0)

    def earned(self, verdict: Verdict) -> float:
        """The points ``verdict`` earns. Passed: all. Failed, under partial credit: the share of
        its evaluated properties that held (a check that stopped early counts only those it
        evaluated, and a failed one never earns all). Any other status (error, not started, not
        defined) earns nothing: its properties were not all evaluated on the learner's code."""
        worth = self.worth(verdict.exercise)
        if verdict.status == PASSED:
            return worth
        if verdict.status != FAILED or self.partial_credit != FRACTION or verdict.properties <= 0:
            return 0.0
        held = max(0, verdict.properties - len(verdict.findings))
        return round(worth * min(held, verdict.properties - 1) / verdict.properties, 4)


def load(path: Path | None, exercise_ids: list[str]) -> Scoring:
    """The scoring of ``exercise_ids`` under the config at ``path`` (None: the defaults);
    raises ConfigError naming what is wrong."""
    config = grading_config.load(path, exercise_ids)
    return Scoring(config.points, config.partial_credit, config.visibility)


def shown(points: float) -> str:
    """Points as written: up to 4 decimals, no trailing zeros (2, 0.5, 0.3333, 1000.125)."""
    return f"{points:.4f}".rstrip("0").rstrip(".")
