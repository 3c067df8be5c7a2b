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

Along one direction, the law of a known bug, the bound is sharper: the power studies
(``grader/studies/detection.py``) print it beside the bug's own distance.
"""
import math
from functools import cache

POWER = 0.99


@cache
def required_noncentrality(dof: int, threshold: float, power: float = POWER) -> float:
    """λ* such that a noncentral χ²(dof, λ*) exceeds the test's critical value with
    probability ``power``."""
    from scipy import optimize  # on first use: a runner that only records calls never needs it

    def shortfall(noncentrality: float) -> float:
        return detection_chance(dof, threshold, noncentrality) - power

    high = 1.0
    while shortfall(high) < 0:
        high *= 2
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-9))


def detection_chance(dof: int, threshold: float, noncentrality: float) -> float:
    """P(a noncentral χ²(dof, noncentrality) exceeds the critical value at ``threshold``)."""
    from scipy import stats as scipy_stats  # as optimize above

    return float(scipy_stats.ncx2.sf(scipy_stats.chi2.isf(threshold, dof), dof, noncentrality))


def detectable_tv(draws: int, dof: int, threshold: float, power: float = POWER) -> float:
    """The total variation from the exact law above which a test of ``draws`` draws on
    ``dof + 1`` cells detects any change, in any direction, with probability ``power``."""
    return math.sqrt(required_noncentrality(dof, threshold, power) / (4 * draws))
