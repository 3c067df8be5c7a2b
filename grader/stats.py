"""The grader's statistics: goodness-of-fit against exact laws, rates, Holm's correction.

Every test returns a ``TestResult`` whose ``table`` lists the largest discrepancies,
so a failure shows where the learner's distribution differs from the exact one.
"""
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as scipy_stats

MIN_EXPECTED = 5.0  # cells expected fewer times than this are pooled (Pearson's χ² rule)
TABLE_ROWS = 5


@dataclass
class TestResult:
    p_value: float
    statistic: float
    draws: int
    message: str
    table: list[list[str]] | None = None
    impossible: list = field(default_factory=list)  # outcomes of probability 0 that occurred


def goodness_of_fit(samples, law: dict, what: str = "outcome", show=str) -> TestResult:
    """Pearson's χ² test that ``samples`` (hashable outcomes) are draws from ``law``.

    ``law`` maps every outcome of positive probability to its probability (they sum to
    one). An observed outcome missing from ``law`` or of probability 0 is impossible and
    fails outright (the support test). Cells expected fewer than ``MIN_EXPECTED`` times
    are pooled into one cell, itself merged with the next-smallest cell while too small.
    """
    counts = Counter(samples)
    n = sum(counts.values())
    impossible = sorted((o for o in counts if law.get(o, 0.0) <= 0.0), key=repr)
    table = _discrepancy_table(counts, law, n, what, show)
    if impossible:
        shown = ", ".join(f"{show(o)} ({counts[o]}x)" for o in impossible[:5])
        return TestResult(0.0, math.inf, n, f"produced {what}s that have probability 0: {shown}",
                          table, impossible)
    observed, expected = _pooled(counts, law, n)
    if len(expected) < 2:
        return TestResult(1.0, 0.0, n, f"only one possible {what}")
    statistic, p_value = scipy_stats.chisquare(observed, expected)
    message = (f"the {what}s do not follow the exact law "
               f"(χ² = {statistic:.1f} on {len(expected) - 1} degrees of freedom)")
    return TestResult(float(p_value), float(statistic), n, message, table)


def conditional_goodness_of_fit(pairs, laws: dict, what: str = "outcome",
                                given: str = "condition", show=str) -> TestResult:
    """Pearson's χ² test that in each pair ``(condition, outcome)`` the outcome is a draw
    from ``laws[condition]``, whatever the law of the conditions.

    Given the conditions, each condition's outcomes are an independent multinomial
    sample, so the strata's χ² statistics (each pooled as in ``goodness_of_fit``) and their
    degrees of freedom add up. A pair whose condition has no law, or whose outcome has
    probability 0 under it, is impossible and fails outright.
    """
    pairs = list(pairs)
    counts = Counter(pairs)
    n = len(pairs)
    per_condition = Counter(c for c, _ in pairs)
    joint = {(c, o): per_condition[c] * p / n for c in per_condition for o, p in laws.get(c, {}).items()}
    impossible = sorted((pair for pair in counts if joint.get(pair, 0.0) <= 0.0), key=repr)
    label = f"{what} given {given}"
    table = _discrepancy_table(counts, joint, n, label, lambda pair: f"{show(pair[1])} | {pair[0]}")
    if impossible:
        shown = ", ".join(f"{show(o)} given {given} {c} ({counts[c, o]}x)" for c, o in impossible[:5])
        return TestResult(0.0, math.inf, n, f"produced {what}s that have probability 0: {shown}",
                          table, impossible)
    statistic, dof = 0.0, 0
    for condition, size in per_condition.items():
        stratum = Counter({o: m for (c, o), m in counts.items() if c == condition})
        observed, expected = _pooled(stratum, laws[condition], size)
        if len(expected) > 1:
            statistic += float(((observed - expected) ** 2 / expected).sum())
            dof += len(expected) - 1
    if dof == 0:
        return TestResult(1.0, 0.0, n, f"only one possible {what} for every {given}")
    p_value = float(scipy_stats.chi2.sf(statistic, dof))
    message = (f"the {what}s do not follow their exact law given the {given} "
               f"(χ² = {statistic:.1f} on {dof} degrees of freedom)")
    return TestResult(p_value, statistic, n, message, table)


def rate_test(successes: int, trials: int, expected_rate: float, what: str) -> TestResult:
    """Exact two-sided binomial test of an observed rate against its exact value."""
    if trials == 0:
        return TestResult(1.0, 0.0, 0, f"no {what} to test")
    observed = successes / trials
    if expected_rate in (0.0, 1.0):
        ok = observed == expected_rate
        return TestResult(1.0 if ok else 0.0, observed, trials,
                          f"{what} is {observed:.4f}; it must be exactly {expected_rate:g}",
                          impossible=[] if ok else [observed])
    p_value = scipy_stats.binomtest(successes, trials, expected_rate).pvalue
    return TestResult(float(p_value), observed, trials,
                      f"{what} is {observed:.4f} over {trials} trials; theory says {expected_rate:.4f}")


def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses to reject at family error rate ``alpha``."""
    order = np.argsort(p_values)
    rejected = [False] * len(p_values)
    for rank, index in enumerate(order):
        if p_values[index] > alpha / (len(p_values) - rank):
            break
        rejected[index] = True
    return rejected


def _pooled(counts: Counter, law: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    cells = sorted(law.items(), key=lambda item: item[1])
    observed = [counts.get(o, 0) for o, _ in cells]
    expected = [p * n for _, p in cells]
    small = 0
    while small < len(expected) and expected[small] < MIN_EXPECTED:
        small += 1
    # pool the small cells, then keep absorbing the next cell until the pool is big enough
    pooled_obs, pooled_exp = sum(observed[:small]), sum(expected[:small])
    while small and pooled_exp < MIN_EXPECTED and small < len(expected):
        pooled_obs += observed[small]
        pooled_exp += expected[small]
        small += 1
    obs = ([pooled_obs] if small else []) + observed[small:]
    exp = ([pooled_exp] if small else []) + expected[small:]
    exp = np.array(exp, dtype=float)
    return np.array(obs, dtype=float), exp * (sum(obs) / exp.sum())  # guard float drift


def _discrepancy_table(counts: Counter, law: dict, n: int, what: str, show) -> list[list[str]]:
    outcomes = set(law) | set(counts)

    def z(o):
        e = law.get(o, 0.0) * n
        return (counts.get(o, 0) - e) / math.sqrt(e) if e > 0 else math.inf

    worst = sorted(outcomes, key=lambda o: -abs(z(o)))[:TABLE_ROWS]
    rows = [[what, "observed", "expected", "z"]]
    for o in worst:
        rows.append([show(o), str(counts.get(o, 0)), f"{law.get(o, 0.0) * n:.1f}", f"{z(o):+.1f}"])
    return rows
