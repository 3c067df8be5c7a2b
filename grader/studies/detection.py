"""How surely a check's test sees one known bug: its power against the bug's law, and
the smallest change along the bug's direction it detects (sharper than the oracle's bound
for any direction, ``grader/oracle/chi2_power.py``).
"""
import math

import numpy as np

from grader.oracle import stats
from grader.oracle.chi2_power import POWER, detection_chance, required_noncentrality


def cell_probabilities(law: dict, alternative: dict, draws: int, min_expected: float):
    """(exact, alternative) probabilities of the cells a test of ``draws`` draws of ``law``
    compares (``stats.pooled_cells``), and the alternative's mass outside ``law``'s support."""
    cells = stats.pooled_cells(law, draws, min_expected)
    exact = np.array([sum(law[o] for o in cell) for cell in cells])
    other = np.array([sum(alternative.get(o, 0.0) for o in cell) for cell in cells])
    return exact, other, max(0.0, 1.0 - float(other.sum()))


def power_against(law: dict, alternative: dict, draws: int, threshold: float, min_expected: float) -> float:
    """P(one test of ``draws`` draws from ``alternative`` against ``law`` has p ≤ threshold):
    an outcome outside the support seen at least once, or the noncentral χ² on the cells."""
    exact, other, outside = cell_probabilities(law, alternative, draws, min_expected)
    if outside > 1e-12:
        return 1.0 - (1.0 - outside) ** draws
    if len(exact) < 2:
        return 0.0
    return detection_chance(len(exact) - 1, threshold, draws * float(np.sum((other - exact) ** 2 / exact)))


def detectable_tv_along(law: dict, alternative: dict, draws: int, threshold: float, min_expected: float,
                        power: float = POWER) -> float:
    """The smallest total variation, on the test's cells, of a change from ``law`` towards
    ``alternative`` (the mixture ``(1 − t) law + t alternative``) that the test detects with
    probability ``power``; inf when no such change is visible to it."""
    exact, other, outside = cell_probabilities(law, alternative, draws, min_expected)
    tv = cell_distance(law, alternative, draws, min_expected)
    steps = []
    if outside > 1e-12:  # seen at once: an impossible outcome among the draws
        steps.append((1.0 - (1.0 - power) ** (1.0 / draws)) / outside)
    spread = float(np.sum((other - exact) ** 2 / exact))
    if len(exact) >= 2 and spread > 0:
        steps.append(math.sqrt(required_noncentrality(len(exact) - 1, threshold, power) / (draws * spread)))
    return min(steps) * tv if steps else math.inf


def cell_distance(law: dict, alternative: dict, draws: int, min_expected: float) -> float:
    """The total variation between two laws on the cells a test of ``draws`` draws of
    ``law`` compares (the mass outside its support counted as one more cell)."""
    exact, other, outside = cell_probabilities(law, alternative, draws, min_expected)
    return 0.5 * (float(np.abs(other - exact).sum()) + outside)
