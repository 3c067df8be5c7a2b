"""The grader's statistics: goodness-of-fit against exact laws, rates, Holm's correction.

Every test returns a ``TestResult`` whose ``table`` lists the largest discrepancies,
so a failure shows where the learner's distribution differs from the exact one.

The goodness-of-fit p-values are valid where a check's verdict is decided: under the
exact law, P(p ≤ t) ≤ t for every t below ``SIMULATE_BELOW``. The χ² law of Pearson's
statistic is only asymptotic: with cells expected 5 to 20 times its tail is too light,
and at Holm's thresholds (about 1e-3 / 27 for a check of 27 tests) p < t happens up to
5 times more often than t. So a χ² p-value below ``SIMULATE_BELOW`` is checked by
simulation: the same statistic, on the same pooled cells, for multinomial samples drawn
from the exact law itself (a Monte Carlo test, valid at any number of samples since the
law is known), and the larger of the two p-values is returned. Rejecting only where both
are small keeps the Monte Carlo test's validity. The simulation's generator is seeded from the observed counts, so
the same observations always give the same p-value (the replay contract of
grader/checks/harness.py).
"""
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

MIN_EXPECTED = 5.0  # cells expected fewer times than this are pooled (Pearson's χ² rule)
# The exact-law tests of the verifier and tree checks: G-tests with every cell expected ≥ 20
# times. Simulated, their χ² tail holds where Holm's thresholds lie (p ≈ 2e-5); Pearson's χ²
# with cells ≥ 5 overstates significance there 2–3 times (a cell expected 5 times has a heavy
# upper tail), which would spend the family error rate several times over.
LAW_TEST = {"statistic": "log-likelihood", "min_expected": 20.0}
TABLE_ROWS = 5
STATISTICS = {"pearson": "χ²", "log-likelihood": "G"}  # scipy's power_divergence names
SIMULATE_BELOW = 1e-2  # asymptotic p-values under this are checked by simulation
SIMULATIONS = 99_999  # at most; the smallest simulated p-value is 1 / (SIMULATIONS + 1) = 1e-5
ENOUGH_EXCEEDANCES = 10  # simulation stops once this many statistics reach the observed one
CHUNK = 10_000  # samples simulated at once


def _scipy_stats():
    """scipy.stats, imported on first use: most runners, which only record calls for the
    decider to test, never need it (0.6 s of a runner's start)."""
    from scipy import stats

    return stats


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
    The p-value is the χ² law's where that is above ``SIMULATE_BELOW``, else the larger
    of it and the simulated one (``simulated_p_value``).
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
    value, law_p_value = _scipy_stats().power_divergence(observed, expected, lambda_=statistic)
    p_value = _checked_by_simulation(float(law_p_value), [(observed, expected)], statistic)
    message = (f"the {what}s do not follow the exact law ({STATISTICS[statistic]} = "
               f"{value:.1f} on {len(expected) - 1} degrees of freedom{_at_the_floor(p_value, law_p_value)})")
    return TestResult(p_value, float(value), n, message, table, dof=len(expected) - 1)


def conditional_goodness_of_fit(pairs, laws: dict, what: str = "outcome", given: str = "condition",
                                show=str, *, statistic: str = "pearson",
                                min_expected: float = MIN_EXPECTED) -> TestResult:
    """Pearson's χ² test (or the G-test) that in each pair ``(condition, outcome)`` the
    outcome is a draw from ``laws[condition]``, whatever the law of the conditions.

    Given the conditions, each condition's outcomes are an independent multinomial
    sample, so the strata's statistics (each pooled as in ``goodness_of_fit``) and their
    degrees of freedom add up. A pair whose condition has no law, or whose outcome has
    probability 0 under it, is impossible and fails outright. The p-value is computed as in
    ``goodness_of_fit``; the simulation draws each condition's outcomes with its own count
    and adds up the strata's statistics.
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
    total, dof, strata = 0.0, 0, []
    for condition, size in per_condition.items():
        stratum = Counter({o: m for (c, o), m in counts.items() if c == condition})
        observed, expected = _pooled(stratum, laws[condition], size, min_expected)
        if len(expected) > 1:
            total += float(_scipy_stats().power_divergence(observed, expected, lambda_=statistic)[0])
            dof += len(expected) - 1
            strata.append((observed, expected))
    if dof == 0:
        return TestResult(1.0, 0.0, n, f"only one possible {what} for every {given}")
    law_p_value = float(_scipy_stats().chi2.sf(total, dof))
    p_value = _checked_by_simulation(law_p_value, strata, statistic)
    message = (f"the {what}s do not follow their exact law given the {given} "
               f"({STATISTICS[statistic]} = {total:.1f} on {dof} degrees of freedom"
               f"{_at_the_floor(p_value, law_p_value)})")
    return TestResult(p_value, total, n, message, table, dof=dof)


def simulated_p_value(strata: list[tuple[np.ndarray, np.ndarray]], statistic: str = "pearson") -> float:
    """The exact p-value of the summed statistic of ``strata``, by simulation.

    ``strata``: (observed [k], expected [k]) counts of each stratum's cells, k ≥ 2. Each
    stratum is drawn again as a multinomial of its own size with probabilities
    ``expected / size``, and the statistics are added up, as for the observation. With
    m of L simulated sums at least the observed one, the p-value is (m + 1) / (L + 1)
    after ``SIMULATIONS``, or m / L as soon as m reaches ``ENOUGH_EXCEEDANCES`` (Besag and
    Clifford's sequential p-value, also valid: a large p-value needs few simulations).
    The generator is seeded from the observed counts: the same counts, the same p-value.
    """
    key = tuple((tuple(np.rint(o).astype(int).tolist()), tuple(e.tolist())) for o, e in strata)
    return _simulated(key, statistic)


@lru_cache(maxsize=4096)  # the runner and the decider test the same counts
def _simulated(strata: tuple, statistic: str) -> float:
    counts = [np.array(o) for o, _ in strata]
    expected = [np.array(e) for _, e in strata]
    rng = np.random.default_rng(np.random.SeedSequence(np.concatenate(counts).tolist()))
    observed = sum(_statistic_of_rows(o[None, :], e, statistic)[0] for o, e in zip(counts, expected))
    reached = observed * (1 - 1e-9)  # a simulated sum equal up to rounding counts as reaching it
    exceedances = simulated = 0
    while simulated < SIMULATIONS:
        size = min(CHUNK, SIMULATIONS - simulated)
        sums = sum(_statistic_of_rows(rng.multinomial(o.sum(), e / e.sum(), size=size), e, statistic)
                   for o, e in zip(counts, expected))
        running = exceedances + np.cumsum(sums >= reached)
        if running[-1] >= ENOUGH_EXCEEDANCES:
            return ENOUGH_EXCEEDANCES / (simulated + 1 + int(np.argmax(running >= ENOUGH_EXCEEDANCES)))
        exceedances, simulated = int(running[-1]), simulated + size
    return (exceedances + 1) / (simulated + 1)


def _statistic_of_rows(counts: np.ndarray, expected: np.ndarray, statistic: str) -> np.ndarray:
    """scipy's power-divergence statistic of each row: counts ``[rows, k]``, expected ``[k]``."""
    return _scipy_stats().power_divergence(counts, np.broadcast_to(expected, counts.shape), lambda_=statistic,
                                           axis=1)[0]


def _at_the_floor(p_value: float, law_p_value: float) -> str:
    """What to add to a message when no simulated statistic reached the observed one: the
    p-value is then the simulation's floor, an upper bound; the χ² law's says how far below."""
    if p_value > 1 / (SIMULATIONS + 1):
        return ""
    return (f"; p ≤ {1 / (SIMULATIONS + 1):.0e}: none of {SIMULATIONS:,} samples of the exact law "
            f"reached it, the χ² law gives {law_p_value:.2g}")


def _checked_by_simulation(p_value: float, strata: list, statistic: str) -> float:
    """``p_value`` (the χ² law's) where it is at least ``SIMULATE_BELOW``, else the larger
    of it and the simulated one: a test that rejects only where both are small."""
    if p_value >= SIMULATE_BELOW:
        return p_value
    return max(p_value, simulated_p_value(strata, statistic))


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
    p_value = _scipy_stats().binomtest(successes, trials, expected_rate).pvalue
    return TestResult(float(p_value), observed, trials,
                      f"{what} is {observed:.4f} over {trials} trials; theory says {expected_rate:.4f}",
                      dof=1)


def holm(p_values: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses to reject at family error rate ``alpha``."""
    return weighted_holm(p_values, [1.0] * len(p_values), alpha)


def weighted_holm(p_values: list[float], weights: list[float], alpha: float) -> list[bool]:
    """Holm's weighted step-down procedure (Holm 1979, §5): which hypotheses to reject at
    family error rate ``alpha``, hypothesis ``i`` getting the share ``weights[i] / Σ weights``
    of ``alpha`` (weights > 0; equal weights are Holm's procedure).

    In increasing order of ``p_i / w_i``, ``i`` is rejected while ``p_i ≤ alpha · w_i / W``,
    ``W`` the total weight of the hypotheses not rejected yet. Under any dependence the
    chance of a false rejection is ≤ ``alpha``: until the first true hypothesis is rejected,
    every true one is still in ``W``, so that rejection needs ``p_i ≤ alpha · w_i / W_0`` for
    some true ``i`` (``W_0`` their total weight), whose chance is ≤ ``Σ alpha · w_i / W_0 = alpha``.
    """
    order = np.argsort(np.asarray(p_values, dtype=float) / np.asarray(weights, dtype=float), kind="stable")
    remaining = float(sum(weights))
    rejected = [False] * len(p_values)
    for index in order:
        if p_values[index] > alpha * weights[index] / remaining:
            break
        rejected[index] = True
        remaining -= weights[index]
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
