"""How small a change of a law a statistical test sees: the power statement of a check.

Every test of the grader compares ``n`` draws with an exact law on ``dof + 1`` cells
(Pearson's χ², the G-test, or the binomial test of a rate, ``dof = 1``). Under an
alternative law the statistic is close to a noncentral χ² with noncentrality
``λ = n Σ (a − e)² / e`` over the cells (e the exact cell probabilities, a the
alternative's). A test at threshold ``α`` detects the alternative with probability
``power`` once ``λ ≥ λ*(dof, α, power)``.

For a change of total variation ``δ`` on the cells, ``λ ≥ 4 n δ²`` whatever its
direction: with S the cells the change adds mass to, Cauchy–Schwarz gives
``Σ (a − e)² / e ≥ δ² / P(S) + δ² / (1 − P(S)) ≥ 4 δ²``. So every change with
``δ ≥ sqrt(λ* / 4n)`` is detected with at least that power: a bound that holds for every
bug, the ones no one has thought of included. (A change hidden inside a pooled cell, or in
what a test does not look at, is no change of its law; another test may see it.) For a test
of a law given a condition the strata's statistics add up, and by Jensen's inequality the
same bound holds for the total variation of the joint law.

The critical values here are the χ² law's. The tests compare a small χ² p-value with a
simulated one and keep the larger (grader/oracle/stats.py); where cells are expected few
times the exact critical value lies a little above the χ² law's, so there these
distances are slightly optimistic.

Along one direction, the law of a known bug, the bound is sharper (``detectable_tv_along``):
the scripts that measure each lesson's checks print it beside the bug's own distance.
"""
import math
from functools import cache

import numpy as np
from scipy import optimize
from scipy import stats as scipy_stats

from grader.oracle import stats

POWER = 0.99


@cache
def required_noncentrality(dof: int, threshold: float, power: float = POWER) -> float:
    """λ* such that a noncentral χ²(dof, λ*) exceeds the test's critical value with
    probability ``power``."""
    def shortfall(noncentrality: float) -> float:
        return detection_chance(dof, threshold, noncentrality) - power

    high = 1.0
    while shortfall(high) < 0:
        high *= 2
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-9))


def detection_chance(dof: int, threshold: float, noncentrality: float) -> float:
    """P(a noncentral χ²(dof, noncentrality) exceeds the critical value at ``threshold``)."""
    return float(scipy_stats.ncx2.sf(scipy_stats.chi2.isf(threshold, dof), dof, noncentrality))


def detectable_tv(draws: int, dof: int, threshold: float, power: float = POWER) -> float:
    """The total variation from the exact law above which a test of ``draws`` draws on
    ``dof + 1`` cells detects any change, in any direction, with probability ``power``."""
    return math.sqrt(required_noncentrality(dof, threshold, power) / (4 * draws))


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
