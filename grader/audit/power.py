"""What the audit's draws could see: the smallest deviations caught with probability ≥ 0.99.

Two families of deviation, evaluated at the contexts the sampler actually produced (the
recorded prefixes, so no model is run again):

- a **temperature error**: the sampler draws from the settings' law at ``T·(1 + r)`` (too hot)
  or ``T / (1 + r)`` (too cold) instead of ``T``;
- a **drafter-leaning mixture**: it draws from ``(1 − ε) p + ε q``, ``q`` the drafter's law.

For a deviation whose law at token ``i`` is ``p'_i``, the audit rejects at least when one of
its four pooled tests rejects at the pooled threshold ``a`` (``grader.audit.pit.pooled_threshold``:
weighted Holm's first step rejects any pooled test with ``p ≤ a``), so the chance that *one* of
them rejects is a lower bound on the audit's power. Each is in closed form:

- **support**: ``1 − Π_i (1 − p'_i(p_i = 0))``: the chance that some token falls where ``p`` is 0
  (beyond the filters' edges within float32 rounding, which the support test does not count).
- **KS**: the statistic ``D = sup_t |Ĝ(t) − t|`` is at least ``|Ĝ(t) − t|`` at every ``t``, and
  ``Ĝ(t)`` is a mean of independent Bernoulli(``G_i(t)``), ``G_i`` the CDF of ``u`` under
  ``p'_i`` (piecewise linear in ``t``, exact). With ``k`` the exact KS critical value
  (``scipy.stats.kstwo``), ``P(|Ĝ(t) − t| > k)`` (normal approximation of the Bernoulli mean)
  is a lower bound on the KS power; the best ``t`` of a grid is taken.
- **drafter region** and **drafter mode**: ``S`` has mean ``Σ (m'_i − m_i)`` and variance
  ``Σ m'_i (1 − m'_i)`` under the deviation (``m'_i = P_{p'_i}(q > p)``, or ``p'_i(argmax q)``);
  it is rejected when ``|S| > z_{a/2} · sd_0`` (normal approximation).

``tests/test_audit.py`` checks the bound against simulated draws.
"""
import math
from dataclasses import dataclass, replace

import numpy as np
import torch
from scipy import stats as scipy_stats

from grader.oracle.chi2_power import POWER

GRID = np.linspace(0.01, 0.99, 99)  # the points t where the KS bound is evaluated
CHUNK = 1024
WIDEST = 4.0  # the largest relative temperature error searched


@dataclass
class Deviation:
    """A deviation's law at every recorded token: ``cdf`` ``[n, len(GRID)]`` the CDF of ``u``,
    ``region`` ``[n]`` its mass on ``q > p`` and ``mode`` ``[n]`` its mass on ``argmax q`` (None
    without a drafter), ``outside`` ``[n]`` its mass where ``p`` is 0, its filters' edges left out."""
    cdf: np.ndarray
    region: np.ndarray | None
    mode: np.ndarray | None
    outside: np.ndarray


def sorted_law(sorted_logits: torch.Tensor, settings) -> torch.Tensor:
    """The law of ``settings`` (temperature, top-k, top-p) for logits ``[n, V]`` already in
    decreasing order, in that order (float64). Dividing by a temperature keeps the order, so
    top-k is a prefix and top-p an exclusive cumulative sum: no sort, which makes the many
    laws the power search needs cheap. It equals the course's processor (solutions/sampling.py)
    wherever no two kept logits are tied (tests/test_audit.py)."""
    x = sorted_logits.double() / settings.temperature

    def top_k(x):
        if settings.top_k is not None and settings.top_k < x.shape[-1]:
            x = x.masked_fill(x < x[:, settings.top_k - 1 : settings.top_k], float("-inf"))
        return x

    def top_p(x):
        if settings.top_p is not None and settings.top_p < 1:
            probs = torch.softmax(x, dim=-1)
            x = x.masked_fill(probs.cumsum(-1) - probs >= settings.top_p, float("-inf"))
        return x

    return torch.softmax(top_k(top_p(x)) if settings.top_p_first else top_p(top_k(x)), dim=-1)


def pit_cells(sorted_p: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """Where each point t of GRID falls for laws ``[n, V]`` in the PIT's order (float64):
    ``j`` ``[n, len(GRID)]`` the token whose interval ``[F(j−), F(j))`` holds t, the share
    ``inside`` of that interval below t."""
    through = sorted_p.cumsum(-1)
    grid = torch.from_numpy(GRID).expand(sorted_p.shape[0], -1).contiguous()
    j = torch.searchsorted(through, grid).clamp(max=sorted_p.shape[-1] - 1)  # the first F(j) ≥ t
    width = sorted_p.gather(-1, j)
    start = through.gather(-1, j) - width
    inside = torch.where(width > 0, (grid - start).clamp(min=0) / width.clamp(min=1e-300), 0.0).clamp(max=1)
    return j, inside


def deviation_at(cells: tuple, kept: torch.Tensor, sorted_alt: torch.Tensor, region: torch.Tensor | None,
                 mode: torch.Tensor | None) -> tuple:
    """The fields of Deviation when tokens are drawn from ``sorted_alt`` ``[n, V]``; ``cells``
    from ``pit_cells``, ``kept`` ``[n, V]`` the tokens the support test does not count
    (``Sampling.kept_within_rounding``: p's support and its filters' edges), ``region`` ``[n, V]``
    and ``mode`` ``[n]`` in the same order (or None)."""
    j, inside = cells
    through = sorted_alt.cumsum(-1)
    at_j = sorted_alt.gather(-1, j)
    cdf = through.gather(-1, j) - at_j + at_j * inside
    outside = (sorted_alt * ~kept).sum(-1)  # the mass the support test counts
    if region is None:
        return cdf.numpy(), None, None, outside.clamp(min=0).numpy()
    return (cdf.numpy(), (sorted_alt * region).sum(-1).numpy(), sorted_alt.gather(-1, mode[:, None])[:, 0].numpy(),
            outside.clamp(min=0).numpy())


class Contexts:
    """The recorded contexts, ready for many deviations: the target's logits ``[n, V]`` in
    decreasing order, where GRID falls in each token's PIT (``pit_cells``), the tokens the
    support test does not count (``Sampling.kept_within_rounding``), the drafter region
    ``q > p`` in that order, and the deviation towards q."""

    def __init__(self, target_logits: torch.Tensor, drafter_logits: torch.Tensor | None, settings):
        self.settings = settings
        processor = settings.processor(target_logits.shape[-1])
        self.chunks = []  # (sorted logits, pit cells, region, mode: None without a drafter) per CHUNK tokens
        toward_q = []
        for rows in torch.arange(target_logits.shape[0]).split(CHUNK):
            logits, order = torch.sort(target_logits[rows], dim=-1, descending=True, stable=True)
            p = sorted_law(logits, settings)
            cells, kept, region, mode = pit_cells(p), settings.kept_within_rounding(logits), None, None
            if drafter_logits is not None:
                q = processor(drafter_logits[rows].double()).gather(-1, order)
                region, mode = q > p, q.argmax(-1)
                toward_q.append(deviation_at(cells, kept, q, region, mode))
            self.chunks.append((logits, cells, kept, region, mode))
        self.toward_q = Deviation(*(np.concatenate(c) for c in zip(*toward_q))) if toward_q else None

    def deviation(self, settings) -> Deviation:
        """The Deviation of sampling with ``settings`` instead of the audited ones."""
        parts = [deviation_at(cells, kept, sorted_law(logits, settings), region, mode)
                 for logits, cells, kept, region, mode in self.chunks]
        return Deviation(*(None if column[0] is None else np.concatenate(column) for column in zip(*parts)))


def detection_bound(dev: Deviation, null: Deviation, threshold: float) -> float:
    """A lower bound on the chance that the support, KS, region or mode test rejects at
    ``threshold``; ``null`` holds the chances under p (its ``region`` and ``mode``)."""
    support = -math.expm1(float(np.sum(np.log1p(-np.clip(dev.outside, 0, 1 - 1e-15)))))
    return max(support, ks_bound(dev.cdf, threshold), martingale_bound(dev.region, null.region, threshold),
               martingale_bound(dev.mode, null.mode, threshold))


def ks_bound(cdf: np.ndarray, threshold: float) -> float:
    n = cdf.shape[0]
    k = scipy_stats.kstwo.isf(threshold, n)
    mean = cdf.mean(0)
    sd = np.sqrt(np.sum(cdf * (1 - cdf), 0)) / n
    sd = np.maximum(sd, 1e-12)
    chance = scipy_stats.norm.sf((GRID + k - mean) / sd) + scipy_stats.norm.cdf((GRID - k - mean) / sd)
    return float(chance.max())


def martingale_bound(chances: np.ndarray | None, null_chances: np.ndarray | None, threshold: float) -> float:
    """The chance that a martingale test (grader/audit/pit.py) rejects when its indicators have
    ``chances`` ``[n]`` instead of ``null_chances`` (normal approximation)."""
    if chances is None or null_chances is None:
        return 0.0
    null_sd = math.sqrt(float(np.sum(null_chances * (1 - null_chances))))
    sd = math.sqrt(float(np.sum(chances * (1 - chances))))
    if null_sd == 0 or sd == 0:
        return 0.0
    shift, z = float(np.sum(chances - null_chances)), scipy_stats.norm.isf(threshold / 2)
    return float(scipy_stats.norm.sf((z * null_sd - shift) / sd) + scipy_stats.norm.cdf((-z * null_sd - shift) / sd))


def smallest_caught(chance, widest: float, power: float = POWER, steps: int = 8) -> float | None:
    """The smallest size ``s`` in [widest·2^-12, widest] with ``chance(s) ≥ power`` (``chance``
    assumed to grow with ``s``), by bisection on log ``s`` (the result is within 2^(12/2^steps) of
    the exact one, never below it: 3 %); None when even ``widest`` is missed."""
    if chance(widest) < power:
        return None
    low, high = math.log(widest) - 12 * math.log(2), math.log(widest)
    if chance(math.exp(low)) >= power:
        return math.exp(low)
    for _ in range(steps):
        middle = (low + high) / 2
        low, high = (low, middle) if chance(math.exp(middle)) >= power else (middle, high)
    return math.exp(high)


@dataclass
class PowerStatement:
    """The smallest deviations the audit's draws catch with probability ≥ ``power``."""
    power: float
    threshold: float  # the pooled tests' threshold (grader.audit.pit.pooled_threshold)
    hotter: float | None  # relative temperature error r: T·(1 + r) caught
    colder: float | None  # T / (1 + r) caught
    mixture: float | None  # ε of (1 − ε) p + ε q caught (None without a drafter)


def power_statement(record, settings, threshold: float, power: float = POWER) -> PowerStatement:
    """The power of an audit whose ``record`` (grader/audit/draws.py) fails when a pooled test's
    p-value is at most ``threshold``, under the sampling ``settings``."""
    vocab = record.target_logits.shape[-1]
    drafter = record.drafter_logits.reshape(-1, vocab) if record.drafter_logits is not None else None
    contexts = Contexts(record.target_logits.reshape(-1, vocab), drafter, settings)
    stats = record.token_stats
    null = Deviation(None, None, None, None) if drafter is None else \
        Deviation(None, stats.region_mass.ravel(), stats.mode_mass.ravel(), None)

    def temperature_chance(factor):
        def chance(r):
            changed = replace(settings, temperature=settings.temperature * factor(r))
            return detection_bound(contexts.deviation(changed), null, threshold)
        return chance

    hotter = smallest_caught(temperature_chance(lambda r: 1 + r), WIDEST, power)
    colder = smallest_caught(temperature_chance(lambda r: 1 / (1 + r)), WIDEST, power)
    mixture = None
    if contexts.toward_q is not None:
        toward_q = contexts.toward_q

        def mixture_chance(eps):
            mixed = Deviation((1 - eps) * GRID + eps * toward_q.cdf, (1 - eps) * null.region + eps * toward_q.region,
                              (1 - eps) * null.mode + eps * toward_q.mode, eps * toward_q.outside)
            return detection_bound(mixed, null, threshold)
        mixture = smallest_caught(mixture_chance, 1.0, power)
    return PowerStatement(power, threshold, hotter, colder, mixture)
