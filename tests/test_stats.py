"""The statistics module against known answers."""
import numpy as np

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
    assert stats.goodness_of_fit(wrong, law).p_value < 1e-6


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
