"""The audit's false-alarm rate on exact draws, at a scale one CPU allows.

A real audit at the default draws costs about a minute (96 texts × 40 tokens drawn through a
sampler, then the laws along them); the thousands an error rate of 1e-3 needs would take days
here. What an exact sampler hands the audit is, at every generated token, a draw from the
target's law ``p`` given the prefix (and the audit's own PIT uniforms). So this study keeps the
contexts of a few real exact audits (their recorded laws ``p`` and ``q`` along the texts, float64
after the settings) and draws, many times over, a fresh token from ``p`` at each context and
fresh uniforms, then applies the audit's whole decision rule (``pit.audit_tests``: support, KS,
the region and mode martingales pooled and per position, weighted Holm at ``pit.ALPHA``).

What it measures: the level of the decision rule at the real chances (lopsided, varying from
token to token), i.e. whether the KS p-values, the pooled martingales' normal law, the exact
per-position Poisson-binomial tests and the weighted Holm family keep the stated rate.
What it leaves out (docs/audit.md says so beside its numbers): the contexts stay those the real
texts produced, so a token's law no longer depends on the tokens drawn before it in the same
simulated text (the pooled martingales' dependence between a text's tokens), and the draws come
from the float64 laws the audit computes, not the float32 ones a sampler uses. The real audits
whose contexts it borrows are exact audits too, and are reported beside it. ``text_study``
draws whole texts token by token on the tiny pair, in float64 and as a float32 sampler, for
those two.
"""
from dataclasses import dataclass

import numpy as np
import torch

from grader.audit.pit import ALPHA, TokenStatistics, audit_tests, is_pooled

POOLED_KINDS = ("PIT uniformity", "drafter region", "drafter mode")  # the pooled tests whose p-values vary


@dataclass
class NullLaws:
    """The laws of a recorded audit, ready to draw from: per context (``n = texts · positions``)
    the target's law sorted in decreasing order, ``sorted_p`` ``[n, V]`` and its cumulative sums
    ``through`` ``[n, V]`` (float64), ``region`` ``[n, V]`` (bool, in that order: ``q > p``),
    ``order`` ``[n, V]`` the token at each sorted place, ``region_mass`` and ``mode_mass``
    ``[n]`` (the martingales' chances), ``mode`` ``[n]`` (``argmax q``); ``shape`` is
    ``(texts, positions)``."""
    sorted_p: torch.Tensor
    through: torch.Tensor
    region: torch.Tensor
    order: torch.Tensor
    region_mass: np.ndarray
    mode_mass: np.ndarray
    mode: torch.Tensor
    shape: tuple[int, int]

    @classmethod
    def of(cls, p: torch.Tensor, q: torch.Tensor, shape: tuple[int, int]) -> "NullLaws":
        """From the laws ``p`` and ``q`` ``[n, V]`` (float64, after the settings) of ``n``
        contexts laid out as ``shape`` (texts, positions)."""
        sorted_p, order = torch.sort(p, dim=-1, descending=True, stable=True)  # the PIT's order
        region = (q > p).gather(-1, order)
        mode = q.argmax(-1)
        return cls(sorted_p, sorted_p.cumsum(-1), region, order, (p * (q > p)).sum(-1).numpy(),
                   p.gather(-1, mode[:, None])[:, 0].numpy(), mode, shape)

    def exact_draw(self, rng: np.random.Generator, law_of_w=None) -> TokenStatistics:
        """One simulated exact audit's statistics: at each context a token drawn from ``p`` by
        its inverse CDF in the PIT's order (``w ~ U(0, 1)``, the token whose interval holds
        ``w``), and the audit's own uniform ``v`` for the PIT. ``law_of_w`` maps the ``w``'s
        ``[n]`` elsewhere (a biased sampler, to prove the study can see one)."""
        n = self.sorted_p.shape[0]
        w = torch.from_numpy(rng.random(n))
        if law_of_w is not None:
            w = law_of_w(w)
        place = torch.searchsorted(self.through, w[:, None].contiguous()).clamp(max=self.sorted_p.shape[-1] - 1)
        p_token = self.sorted_p.gather(-1, place)[:, 0]
        mass_before = self.through.gather(-1, place)[:, 0] - p_token
        u = mass_before + torch.from_numpy(rng.random(n)) * p_token
        token = self.order.gather(-1, place)[:, 0]
        fields = (u.numpy(), p_token.numpy(), self.region.gather(-1, place)[:, 0].double().numpy(), self.region_mass,
                  (token == self.mode).double().numpy(), self.mode_mass)
        return TokenStatistics(*(np.asarray(a, dtype=float).reshape(self.shape) for a in fields))


@dataclass
class NullAudit:
    """One simulated audit: did the family reject (``alarm``), which tests did, and the pooled
    p-values by kind (``pooled``: kind -> p)."""
    alarm: bool
    rejected: list[str]
    pooled: dict[str, float]


def simulate(laws: NullLaws, audits: int, seed: int, alpha: float = ALPHA, law_of_w=None) -> list[NullAudit]:
    """``audits`` simulated exact audits at the contexts of ``laws``, each decided by the audit's
    own rule at level ``alpha``; reproducible from ``seed``."""
    rng = np.random.default_rng([seed, 49])
    found = []
    for _ in range(audits):
        tests = audit_tests(laws.exact_draw(rng, law_of_w), alpha)
        pooled = {kind: t.p_value for t in tests if is_pooled(t) for kind in POOLED_KINDS if t.name.startswith(kind)}
        found.append(NullAudit(any(t.rejected for t in tests), [t.name for t in tests if t.rejected], pooled))
    return found


def summary(found: list[NullAudit], alpha: float = ALPHA) -> dict:
    """The alarms, the rate with its exact (Clopper–Pearson) 95 % interval, the chance of as
    many alarms or more at the stated rate ``alpha``, and per pooled kind how many p-values fell
    below 1e-3 (``alpha`` times the audits expected of a valid p-value) and a KS test of their
    uniformity."""
    from scipy import stats

    alarms, n = sum(a.alarm for a in found), len(found)
    interval = stats.binomtest(alarms, n).proportion_ci(0.95, method="exact")
    kinds = {}
    for kind in POOLED_KINDS:
        values = np.array([a.pooled[kind] for a in found if kind in a.pooled])
        if values.size:
            kinds[kind] = {"below_1e-3": int(np.sum(values <= 1e-3)), "expected": round(1e-3 * values.size, 3),
                           "uniformity_p": float(stats.kstest(values, "uniform").pvalue)}
    return {"audits": n, "alarms": alarms, "rate": alarms / n, "ci95": [interval.low, interval.high],
            "chance_of_as_many_at_alpha": float(stats.binom.sf(alarms - 1, n, alpha)) if alarms else 1.0,
            "pooled": kinds}
