"""The grading config: a TOML file (``grader grade --config FILE``, and ``grader autograder
--config FILE``, which puts it in the zip) setting the points each exercise is worth, how a
failed exercise earns some of them, and what Gradescope shows learners::

    partial_credit = "fraction"   # or "all_or_nothing"
    shared = "split"              # or "each"
    visibility = "visible"        # Gradescope's: visible, after_due_date, after_published, hidden
    draws = 1                     # times their default samples the statistical checks draw
    [points]
    max_fn = 2
    kv_cache = 1

Defaults (docs/grading.md says why): 1 point per exercise; exercises that grade the same
function (``speculative_generate`` and ``kv_cache`` both grade ``speculative_generate``)
share that function's point (``shared = "split"``: 0.5 each) unless ``[points]`` names them
or ``shared = "each"``; a failed exercise earns the fraction of its properties that held
(grader/gradebook/scoring.py applies it); the checks draw their default samples (``draws = 1``,
as a learner's ``grader check``): an autograder may draw more, which learners' public checks
do not (``grader.exercises.with_draws`` puts them in each verdict's seed). Every value is checked when the file is read, so a
mistake stops ``grader grade`` or the autograder's build, never a learner's grading.
"""
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from grader import exercises

FRACTION, ALL_OR_NOTHING = "fraction", "all_or_nothing"
SPLIT, EACH = "split", "each"
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")  # Gradescope's
CHOICES = {"partial_credit": (FRACTION, ALL_OR_NOTHING), "shared": (SPLIT, EACH), "visibility": VISIBILITIES}
MAX_BYTES = 64 * 1024
MAX_POINTS = 1e6
MAX_DRAWS = 16  # times the default samples: the checks' time grows with it (row_deadline allows for it)


class ConfigError(ValueError):
    """A grading config that cannot be used: the message says what is wrong and what is expected."""


@dataclass(frozen=True)
class GradingConfig:
    points: dict[str, float]  # exercise id -> the points it is worth, for every exercise graded
    partial_credit: str = FRACTION
    visibility: str = "visible"
    draws: int = 1  # times their default samples the statistical checks draw


def load(path: Path | None, exercise_ids: list[str]) -> GradingConfig:
    """The config of a grading of ``exercise_ids``, read from ``path`` (None: the defaults).
    Raises ConfigError naming what is wrong."""
    config = _read(path) if path is not None else {}
    unknown = set(config) - set(CHOICES) - {"points", "draws"}
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {sorted(unknown)}; expected partial_credit, shared, "
                          "visibility, draws and a [points] table")
    draws = config.get("draws", 1)
    if type(draws) is not int or not 1 <= draws <= MAX_DRAWS:
        raise ConfigError(f"{path}: draws = {draws!r}; expected a whole number from 1 (the checks' default "
                          f"samples, as learners draw them) to {MAX_DRAWS} (that many times them)")
    for key, allowed in CHOICES.items():
        if key in config and config[key] not in allowed:
            raise ConfigError(f"{path}: {key} = {config[key]!r}; expected one of {', '.join(allowed)}")
    given = config.get("points", {})
    if not isinstance(given, dict):
        raise ConfigError(f"{path}: points must be a table, [points], of exercise = number")
    for exercise_id, value in given.items():
        if exercise_id not in exercises.BY_ID:
            raise ConfigError(f"{path}: [points] {exercises.unknown_message(exercise_id)}")
        if type(value) not in (int, float) or not 0 <= value <= MAX_POINTS:
            raise ConfigError(f"{path}: [points] {exercise_id} = {value!r}; expected a number of points "
                              f"from 0 to {MAX_POINTS:g}")
    points = default_points(exercise_ids, split=config.get("shared", SPLIT) == SPLIT)
    points.update({e: float(v) for e, v in given.items() if e in points})
    return GradingConfig(points, config.get("partial_credit", FRACTION), config.get("visibility", "visible"), draws)


def default_points(exercise_ids: list[str], split: bool = True) -> dict[str, float]:
    """1 point per exercise; with ``split``, the exercises graded here that grade one function
    share its point, so that one loop is not counted twice."""
    sharing: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for exercise_id in exercise_ids:
        sharing[exercises.get(exercise_id).functions].append(exercise_id)
    return {e: 1.0 / len(sharing[exercises.get(e).functions]) if split else 1.0 for e in exercise_ids}


def _read(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the grading config {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: a grading config is at most {MAX_BYTES // 1024} KB")
    try:
        return tomllib.loads(data.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path} is not TOML ({exc}); docs/grading.md shows a grading config") from None
