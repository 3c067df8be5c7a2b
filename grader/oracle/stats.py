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
STATISTICS = {"pearson": "χ²", "log-likelihood": "G"}  # scipy's power_divergence names


@dataclass
class TestResult:
    p_value: float
    statistic: float
    draws: int
    message: str
    table: list[list[str]] | None = None
    impossible: list = field(default_factory=list)  # outcomes of probability 0 that occurred
    dof: int | None = None  # degrees of freedom: the cells compared, less one (power.py)


def goodness_of_fit(samples, law: dict, what: str = "outcome", show=str, *,
                    statistic: str = "pearson", min_expected: float = MIN_EXPECTED) -> TestResult:
    """Pearson's χ² test (or the G-test, ``statistic="log-likelihood"``) that ``samples``
    (hashable outcomes) are draws from ``law``.

    ``law`` maps every outcome of positive probability to its probability (they sum to
    one). An observed outcome missing from ``law`` or of probability 0 is impossible and
    fails outright (the support test). Cells expected fewer than ``min_expected`` times
    are pooled into one cell, itself merged with the next-smallest cell while too small.
    """
    counts = Counter(samples)
    n = sum(counts.values())
    impossible = sorted((o for o in counts if law.get(o, 0.0) <= 0.0), key=repr)
    table = _discrepancy_table(counts, law, n, [what], lambda o: [show(o)])
    if impossible:
        shown = ", ".join(f"{show(o)} ({counts[o]}x)" for o in impossible[:5])
        return TestResult(0.0, math.inf, n, f"produced {what}s that have probability 0: {shown}",
                          table, impossible)
    observed, expected = _pooled(counts, law, n, min_expected)
    if len(expected) < 2:
        return TestResult(1.0, 0.0, n, f"only one possible {what}")
    value, p_value = scipy_stats.power_divergence(observed, expected, lambda_=statistic)
    message = (f"the {what}s do not follow the exact law ({STATISTICS[statistic]} = "
               f"{value:.1f} on {len(expected) - 1} degrees of freedom)")
    return TestResult(float(p_value), float(value), n, message, table, dof=len(expected) - 1)


def conditional_goodness_of_fit(pairs, laws: dict, what: str = "outcome", given: str = "condition",
                                show=str, *, statistic: str = "pearson",
                                min_expected: float = MIN_EXPECTED) -> TestResult:
    """Pearson's χ² test (or the G-test) that in each pair ``(condition, outcome)`` the
    outcome is a draw from ``laws[condition]``, whatever the law of the conditions.

    Given the conditions, each condition's outcomes are an independent multinomial
    sample, so the strata's statistics (each pooled as in ``goodness_of_fit``) and their
    degrees of freedom add up. A pair whose condition has no law, or whose outcome has
    probability 0 under it, is impossible and fails outright.
    """
    pairs = list(pairs)
    counts = Counter(pairs)
    n = len(pairs)
    per_condition = Counter(c for c, _ in pairs)
    joint = {(c, o): per_condition[c] * p / n for c in per_condition for o, p in laws.get(c, {}).items()}
    impossible = sorted((pair for pair in counts if joint.get(pair, 0.0) <= 0.0), key=repr)
    table = _discrepancy_table(counts, joint, n, [given, what], lambda pair: [str(pair[0]), show(pair[1])])
    if impossible:
        shown = ", ".join(f"{show(o)} given {given} {c} ({counts[c, o]}x)" for c, o in impossible[:5])
        return TestResult(0.0, math.inf, n, f"produced {what}s that have probability 0: {shown}",
                          table, impossible)
    total, dof = 0.0, 0
    for condition, size in per_condition.items():
        stratum = Counter({o: m for (c, o), m in counts.items() if c == condition})
        observed, expected = _pooled(stratum, laws[condition], size, min_expected)
        if len(expected) > 1:
            total += float(scipy_stats.power_divergence(observed, expected, lambda_=statistic)[0])
            dof += len(expected) - 1
    if dof == 0:
        return TestResult(1.0, 0.0, n, f"only one possible {what} for every {given}")
    p_value = float(scipy_stats.chi2.sf(total, dof))
    message = (f"the {what}s do not follow their exact law given the {given} "
               f"({STATISTICS[statistic]} = {total:.1f} on {dof} degrees of freedom)")
    return TestResult(p_value, total, n, message, table, dof=dof)


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
                      f"{what} is {observed:.4f} over {trials} trials; theory says {expected_rate:.4f}",
                      dof=1)


def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses to reject at family error rate ``alpha``."""
    order = np.argsort(p_values)
    rejected = [False] * len(p_values)
    for rank, index in enumerate(order):
        if p_values[index] > alpha / (len(p_values) - rank):
            break
        rejected[index] = True
    return rejected


def pooled_cells(law: dict, n: int, min_expected: float = MIN_EXPECTED) -> list[list]:
    """The cells a test of ``n`` draws compares: groups of outcomes of ``law``.

    Outcomes expected fewer than ``min_expected`` times are pooled into one cell, which
    keeps absorbing the next-smallest outcome while it is still too small; every other
    outcome is a cell of its own.
    """
    outcomes = sorted(law, key=law.get)
    small = 0
    while small < len(outcomes) and law[outcomes[small]] * n < min_expected:
        small += 1
    pooled_mass = sum(law[o] for o in outcomes[:small])
    while small and pooled_mass * n < min_expected and small < len(outcomes):
        pooled_mass += law[outcomes[small]]
        small += 1
    return ([outcomes[:small]] if small else []) + [[o] for o in outcomes[small:]]


def _pooled(counts: Counter, law: dict, n: int,
            min_expected: float = MIN_EXPECTED) -> tuple[np.ndarray, np.ndarray]:
    cells = pooled_cells(law, n, min_expected)
    observed = np.array([sum(counts.get(o, 0) for o in cell) for cell in cells], dtype=float)
    expected = np.array([sum(law[o] for o in cell) * n for cell in cells])
    return observed, expected * (observed.sum() / expected.sum())  # guard float drift


def _discrepancy_table(counts: Counter, law: dict, n: int, header: list[str], cells) -> list[list[str]]:
    """The outcomes farthest from their expected counts: ``header`` names the columns that
    ``cells(outcome)`` fills, then observed, expected and z."""
    outcomes = set(law) | set(counts)

    def z(o):
        e = law.get(o, 0.0) * n
        return (counts.get(o, 0) - e) / math.sqrt(e) if e > 0 else math.inf

    worst = sorted(outcomes, key=lambda o: -abs(z(o)))[:TABLE_ROWS]
    rows = [header + ["observed", "expected", "z"]]
    for o in worst:
        rows.append(cells(o) + [str(counts.get(o, 0)), f"{law.get(o, 0.0) * n:.1f}", f"{z(o):+.1f}"])
    return rows
