"""The statistics module against known answers."""
import numpy as np
from scipy import stats as scipy_stats

from grader.oracle import stats


def test_holm_step_down():
    assert stats.holm([0.01, 0.04, 0.03], 0.05) == [True, False, False]
    assert stats.holm([0.001, 0.02, 0.04], 0.05) == [True, True, True]
    assert stats.holm([], 0.05) == []


def test_goodness_of_fit_accepts_true_law_and_rejects_wrong_one():
    rng = np.random.default_rng(0)
    law = {0: 0.5, 1: 0.3, 2: 0.2}
    draws = rng.choice(3, size=5000, p=[0.5, 0.3, 0.2]).tolist()
    assert stats.goodness_of_fit(draws, law).p_value > 1e-3
    wrong = rng.choice(3, size=5000, p=[0.4, 0.4, 0.2]).tolist()
    assert stats.goodness_of_fit(wrong, law).p_value < 1e-4


def test_impossible_outcome_fails_outright():
    result = stats.goodness_of_fit([0, 0, 1, 2], {0: 0.5, 1: 0.5})
    assert result.impossible == [2] and result.p_value == 0.0


def test_small_cells_are_pooled():
    law = {i: 0.0005 for i in range(20)} | {"big": 0.99}
    observed, expected = stats._pooled({"big": 99}, law, 100)
    assert (expected >= stats.MIN_EXPECTED).all() or len(expected) == 1


def test_rate_test():
    assert stats.rate_test(50, 100, 0.5, "rate").p_value > 0.5
    assert stats.rate_test(90, 100, 0.5, "rate").p_value < 1e-6
    assert stats.rate_test(3, 10, 1.0, "rate").impossible


def test_p_values_hold_in_the_tail_where_the_chi2_law_does_not():
    """Two cells expected 45 and 5 times: every possible count is enumerated with its
    binomial probability, so the rates are exact, not estimated. The χ² law's p ≤ 1e-3
    happens 3.2 times as often as 1e-3 there; the simulated p-values keep below 1e-3 and
    1e-4, and each is within the Monte Carlo error of the exact tail probability."""
    draws, rare = 50, 0.1
    law = {"common": 1 - rare, "rare": rare}
    counts = np.arange(draws + 1)
    mass = scipy_stats.binom.pmf(counts, draws, rare)
    results = [stats.goodness_of_fit(["rare"] * k + ["common"] * (draws - k), law) for k in counts]
    statistic = np.array([r.statistic for r in results])
    exact = np.array([mass[statistic >= s * (1 - 1e-9)].sum() for s in statistic])
    chi2_law = scipy_stats.chi2.sf(statistic, 1)
    p_values = np.array([r.p_value for r in results])
    assert mass[chi2_law <= 1e-3].sum() > 3 * 1e-3  # the defect the simulation corrects
    for threshold in (1e-3, 1e-4):
        assert mass[p_values <= threshold].sum() <= threshold
    simulated = (chi2_law < stats.SIMULATE_BELOW) & (exact > 1 / (stats.SIMULATIONS + 1))
    assert simulated.sum() >= 5 and np.all(p_values[simulated] / exact[simulated] < 2.5)
    assert np.all(p_values[simulated] >= np.maximum(chi2_law[simulated], exact[simulated] / 2.5))


def test_simulated_p_values_are_deterministic_and_reject_a_wrong_law():
    """The simulation is seeded from the counts: the same observations in any order give
    the same p-value, even with nothing cached. Draws from another law are rejected, by
    the plain and the conditional test."""
    rng = np.random.default_rng(1)
    law = {0: 0.9, 1: 0.04, 2: 0.03, 3: 0.03}
    observed = [0] * 171 + [1] * 8 + [2] * 6 + [3] * 15  # expected 180, 8, 6, 6 times
    first = stats.goodness_of_fit(observed, law)
    stats._simulated.cache_clear()
    again = stats.goodness_of_fit(observed[::-1], law)
    assert first.p_value == again.p_value and 1e-4 < first.p_value < stats.SIMULATE_BELOW
    wrong = rng.choice(4, size=200, p=[0.7, 0.1, 0.1, 0.1]).tolist()
    assert stats.goodness_of_fit(wrong, law).p_value == 1 / (stats.SIMULATIONS + 1)
    laws = {"a": law, "b": {0: 0.5, 1: 0.5}}
    pairs = [("a", o) for o in wrong] + [("b", o) for o in rng.choice(2, size=100).tolist()]
    conditional = stats.conditional_goodness_of_fit(pairs, laws)
    stats._simulated.cache_clear()
    assert conditional.p_value == stats.conditional_goodness_of_fit(pairs[::-1], laws).p_value
    assert conditional.p_value == 1 / (stats.SIMULATIONS + 1)
