"""The power statement (grader/oracle/chi2_power.py; along a known bug, grader/studies/detection.py)
against simulation: a change of the stated size is detected about 99% of the time, one of
half the size far less often."""
import numpy as np
from scipy import stats as scipy_stats

from grader.oracle import chi2_power
from grader.studies import detection

LAW = {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1}
DRAWS, THRESHOLD, TRIALS = 1000, 1e-4, 4000


def rejection_rate(probabilities: dict, rng) -> float:
    """How often Pearson's χ² test of DRAWS draws from ``probabilities`` against LAW rejects."""
    expected = np.array(list(LAW.values())) * DRAWS
    counts = rng.multinomial(DRAWS, [probabilities[o] for o in LAW], size=TRIALS)
    p_values = scipy_stats.chi2.sf(np.sum((counts - expected) ** 2 / expected, axis=1), len(LAW) - 1)
    return float(np.mean(p_values <= THRESHOLD))


def moved(delta: float, into: tuple, out_of: tuple) -> dict:
    """LAW with mass ``delta`` moved from the outcomes ``out_of`` to ``into``, in proportion."""
    def share(group):
        return {o: LAW[o] / sum(LAW[g] for g in group) for o in group}
    changed = dict(LAW)
    for o, w in share(into).items():
        changed[o] += delta * w
    for o, w in share(out_of).items():
        changed[o] -= delta * w
    return changed


def test_any_change_of_the_stated_size_is_detected():
    rng = np.random.default_rng(0)
    delta = chi2_power.detectable_tv(DRAWS, len(LAW) - 1, THRESHOLD)
    hardest = moved(delta, ("a", "d"), ("b", "c"))  # P(S) = 1/2: the least visible direction
    assert rejection_rate(hardest, rng) >= 0.97
    assert rejection_rate(moved(delta / 2, ("a", "d"), ("b", "c")), rng) < 0.5  # the bound is not loose


def test_a_change_along_a_known_direction_is_detected_from_its_own_size():
    rng = np.random.default_rng(1)
    bug = moved(0.3, ("d",), ("a",))
    delta = detection.detectable_tv_along(LAW, bug, DRAWS, THRESHOLD, min_expected=5)
    assert delta < chi2_power.detectable_tv(DRAWS, len(LAW) - 1, THRESHOLD)  # sharper than any direction
    assert 0.97 <= rejection_rate(moved(delta, ("d",), ("a",)), rng)
    assert rejection_rate(moved(delta / 2, ("d",), ("a",)), rng) < 0.5
    assert detection.power_against(LAW, moved(delta, ("d",), ("a",)), DRAWS, THRESHOLD, 5) >= 0.98


def test_an_outcome_outside_the_support_is_seen_at_once():
    outside = dict(LAW, e=0.01, a=0.39)
    delta = detection.detectable_tv_along(LAW, outside, DRAWS, THRESHOLD, min_expected=5)
    assert delta < 0.01 and detection.power_against(LAW, outside, DRAWS, THRESHOLD, 5) > 0.9999
