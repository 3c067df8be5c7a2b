"""The audit's statistics on a real vocabulary, from the target's law at each generated token.

For a generated token ``x`` whose target law given the generated prefix is ``p`` (the law
after the sampling settings), with the vocabulary ordered by decreasing ``p`` (ties by
token id):

- **randomized PIT**: ``u = F(x−) + V·p(x)``, ``F(x−)`` the mass ordered before ``x`` and
  ``V ~ U(0, 1)`` drawn by the audit. Given the prefix, ``u`` is uniform exactly when ``x ~ p``;
  the u's of a text are then i.i.d. uniform (each is uniform whatever came before), so a
  Kolmogorov–Smirnov test against U(0, 1) (scipy.stats) tests the sampler on any vocabulary.
- **support**: a token with ``p(x) = 0`` (outside top-k or top-p) cannot come from ``p``.
- **drafter region** (a martingale): ``S = Σ 1[q(x) > p(x)] − P_p(q > p)``, ``q`` the drafter's
  law after the same settings. Each term has mean 0 given the prefix and variance
  ``P_p(q > p)(1 − P_p(q > p))``, so ``S`` over its known standard deviation is a z-statistic
  (martingale central limit theorem). A sampler leaning towards its drafter (a draft kept
  without the correction) makes ``S`` positive where the PIT's KS test is slow to notice.
- **drafter mode** (a martingale of the same kind): ``Σ 1[x = argmax q] − p(argmax q)``. A
  sampler that drafts greedily (while verifying against the sampled q) emits the drafter's
  top token far more often than ``p`` gives it.

Each test runs pooled over every token and at each position of the texts. At one position
the drafter tests are exact (the texts' indicators are independent given their prefixes: a
Poisson-binomial count); a drafter test whose chances are all 0 or 1 has no variance and is
left out (``martingale_test``). Holm's weighted
procedure (``grader.oracle.stats.weighted_holm``) keeps the family's false-alarm rate at
``ALPHA``: the pooled tests share ``POOLED_SHARE`` of it and the per-position ones the rest, so
the few pooled tests, which see every token, are not diluted by the many per-position ones
(at 40 positions plain Holm tested a pooled test at ``ALPHA / 124``; now at ``ALPHA / 8``).
"""
from dataclasses import dataclass

import numpy as np
import torch
from scipy import stats as scipy_stats

from grader.oracle import stats

ALPHA = 1e-3  # the family-wise false-alarm rate of one audit, as for the course's checks
POOLED_SHARE = 0.5  # of ALPHA, spread evenly over the pooled tests (support included)


@dataclass
class TokenStatistics:
    """Per generated token, arrays ``[texts, positions]``: the PIT value ``u``, ``p(x)``, the
    region indicator ``1[q(x) > p(x)]`` and its null mean ``P_p(q > p)``, the mode indicator
    ``1[x = argmax q]`` and its null mean ``p(argmax q)`` (the last four NaN without a drafter);
    then, for the diagnosis alone (no test reads them: ``row_evidence``), ``p_row_before``,
    ``tail_u`` and ``vocab_rank`` (None where not computed); and ``at_edge`` (1 where a token of
    p(x) = 0 lies at a filter's edge within float32 rounding: ``adapters.Sampling.kept_within_rounding``;
    None where not computed, then every token of p(x) = 0 counts)."""
    u: np.ndarray
    p_token: np.ndarray
    in_region: np.ndarray
    region_mass: np.ndarray
    is_mode: np.ndarray
    mode_mass: np.ndarray
    p_row_before: np.ndarray | None = None  # the law of the row one position early at the token: p_{j−1}(x_j)
    tail_u: np.ndarray | None = None  # a token with p(x) = 0: its PIT under its row's unfiltered law beyond p's support
    vocab_rank: np.ndarray | None = None  # a token with p(x) = 0: its rank in its row's unfiltered law, over V
    at_edge: np.ndarray | None = None  # p(x) = 0 but kept within float32 rounding of the filters' cuts: not counted


@dataclass
class Test:
    name: str
    statistic: float
    p_value: float
    draws: int
    rejected: bool = False


def ordered_mass_before(p: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """``F(x−)`` ``[n]``: the mass of the tokens ordered before ``tokens`` ``[n]`` under
    ``p`` ``[n, V]`` (decreasing probability, ties by token id)."""
    sorted_p, order = torch.sort(p, dim=-1, descending=True, stable=True)
    before = sorted_p.cumsum(dim=-1) - sorted_p
    rank = torch.empty_like(order).scatter_(-1, order, torch.arange(p.shape[-1]).expand_as(order))
    return before.gather(-1, rank.gather(-1, tokens[:, None]))[:, 0]


def token_statistics(p: torch.Tensor, q: torch.Tensor | None, tokens: torch.Tensor,
                     uniforms: torch.Tensor) -> tuple[np.ndarray, ...]:
    """The fields of TokenStatistics, each ``[n]``, for laws ``p``, ``q`` ``[n, V]`` (float64),
    tokens ``[n]`` and the audit's uniforms ``V`` ``[n]``."""
    p_token = p.gather(-1, tokens[:, None])[:, 0]
    u = ordered_mass_before(p, tokens) + uniforms * p_token
    if q is None:
        nan = np.full(len(tokens), np.nan)
        return u.numpy(), p_token.numpy(), nan, nan, nan, nan
    region = q > p
    in_region = region.gather(-1, tokens[:, None])[:, 0]
    mode = q.argmax(-1)
    return (u.numpy(), p_token.numpy(), in_region.double().numpy(), (p * region).sum(-1).numpy(),
            (tokens == mode).double().numpy(), p.gather(-1, mode[:, None])[:, 0].numpy())


def row_evidence(p: torch.Tensor, unfiltered: torch.Tensor, tokens: torch.Tensor, uniforms: torch.Tensor,
                 first: torch.Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which law a token outside p's support came from, for the diagnosis: ``(p_row_before,
    tail_u, vocab_rank)``, each ``[n]``, from the laws ``p`` ``[n, V]`` after the settings and ``unfiltered``
    ``[n, V]`` (temperature alone) of consecutive rows of whole texts, ``tokens`` ``[n]``, the
    audit's ``uniforms`` ``[n]`` and ``first`` ``[n]`` (True at a text's first row).

    - ``p_row_before``: p of the row one position early at the token (NaN at a first row). A
      token drawn from that row (a bonus from p[k − 1]) is always inside its support.
    - ``tail_u`` (NaN where p(x) > 0): the randomized PIT of the token under its own row's
      unfiltered law restricted to the tokens outside p's support. A sampler that forgot the
      filter draws those tokens from exactly that law, so its tail u's are uniform; a token
      from another row's law (one position late, after a rejected draft) sits deep in this
      row's tail, its u near 1.
    - ``vocab_rank`` (NaN where p(x) > 0): the share of the vocabulary more likely than the token
      under its row's unfiltered law. A token of some context's law ranks near the top (a few
      per cent); one drawn nearly uniformly over the vocabulary (a softmax of probabilities
      where a normalisation belongs) ranks anywhere, 0.5 on average."""
    nan = torch.full_like(uniforms, float("nan"))
    p_row_before = nan.clone()
    p_row_before[1:] = p[:-1].gather(-1, tokens[1:, None])[:, 0]
    p_row_before[first] = float("nan")
    tail_u, vocab_rank = nan.clone(), nan.clone()
    outside = p.gather(-1, tokens[:, None])[:, 0] <= 0
    if outside.any():
        rows = outside.nonzero()[:, 0]
        tail = unfiltered[rows] * (p[rows] <= 0)
        mass = tail.sum(-1)
        at_token = tail.gather(-1, tokens[rows, None])[:, 0]
        tail_u[rows] = (ordered_mass_before(tail, tokens[rows]) + uniforms[rows] * at_token) / mass.clamp(min=1e-300)
        vocab_rank[rows] = (unfiltered[rows] > at_token[:, None]).double().mean(-1)
    return p_row_before.numpy(), tail_u.numpy(), vocab_rank.numpy()


def uniformity_test(name: str, u: np.ndarray) -> Test:
    """Kolmogorov–Smirnov against U(0, 1) (exact distribution for these sizes). The statistic
    is the distance D signed by its side: + when the u's lie too low (the likely tokens come
    out too often: the law too concentrated, as when too cold), − when they lie too high."""
    result = scipy_stats.kstest(u, "uniform")
    return Test(name, float(result.statistic * result.statistic_sign), float(result.pvalue), len(u))


def martingale_test(name: str, hits: np.ndarray, chances: np.ndarray, one_per_text: bool) -> Test | None:
    """A sum of indicators ``hits`` ``[n]`` minus their ``chances`` ``[n]`` under p: the
    statistic is z = S / sd (its sign says which way the sampler leans).

    ``one_per_text``: the indicators come from different texts (a per-position test). Given
    the texts' prefixes they are then independent Bernoulli(chance), so the count of hits has
    the Poisson-binomial law exactly and the p-value is exact (twice the smaller tail, at most
    1), however few texts or however lopsided the chances: the normal law would call one miss
    among 16 chances of 0.99999 a z of −79, an event of chance 1.6e-4. Pooled over a text's
    tokens the chances depend on the earlier tokens; the sum is a martingale and its z is
    read against the normal law (the martingale central limit theorem; its variance is in
    the hundreds at the default draws).

    None (no test) when the variance is 0: every chance is 0 or 1, so the count is certain
    under p, and a count off it is a token of probability 0, which the support test already
    counts; a zero-variance z is no evidence of its own."""
    variance = float(np.sum(chances * (1 - chances)))
    if variance <= 0:
        return None
    z = float(np.sum(hits - chances)) / np.sqrt(variance)
    if not one_per_text:
        return Test(name, z, float(2 * scipy_stats.norm.sf(abs(z))), len(hits))
    count, law = int(round(float(np.sum(hits)))), scipy_stats.poisson_binom  # not frozen: 2.5x quicker, same values
    p_value = min(1.0, 2 * min(float(law.cdf(count, chances)), float(law.sf(count - 1, chances))))
    return Test(name, z, p_value, len(hits))


def support_test(p_token: np.ndarray, at_edge: np.ndarray | None = None) -> Test:
    """Tokens of probability 0 under the target's law: any one fails, unless it lies at the
    edge of a filter within float32 rounding (``at_edge`` ``[n]``, 1 there): a top-p or top-k
    cut that a sampler's float32 sums put on the other side of that token (the tiny pair's
    float32 samplers did so in 10 of 3,000 audits; text_study.py), not a sampler's bias."""
    counted = p_token <= 0 if at_edge is None else (p_token <= 0) & (at_edge == 0)
    outside = int(np.sum(counted))
    return Test("support (tokens with p(x) = 0)", outside, 0.0 if outside else 1.0, len(p_token))


def is_pooled(test: Test) -> bool:
    return "position" not in test.name


def pooled_threshold(tests: list[Test], alpha: float = ALPHA) -> float:
    """The level at which any one pooled test fails the audit (weighted Holm's first step)."""
    return alpha * POOLED_SHARE / sum(map(is_pooled, tests))


def audit_tests(token_stats: TokenStatistics, alpha: float = ALPHA) -> list[Test]:
    """Every test of the audit, pooled then per position, with weighted Holm's verdict on each
    (``POOLED_SHARE`` of ``alpha`` over the pooled tests, the rest over the per-position ones);
    a drafter test of zero variance is not among them (``martingale_test``)."""
    ts = token_stats
    has_drafter = not np.isnan(ts.region_mass).any()

    def family(where: str, cut) -> list[Test]:
        tests = [uniformity_test(f"PIT uniformity (KS), {where}", ts.u[cut].ravel())]
        if has_drafter:
            one_per_text = where != "pooled"
            tests += [martingale_test(f"drafter region (z), {where}", ts.in_region[cut].ravel(),
                                      ts.region_mass[cut].ravel(), one_per_text),
                      martingale_test(f"drafter mode (z), {where}", ts.is_mode[cut].ravel(), ts.mode_mass[cut].ravel(),
                                      one_per_text)]
        return [t for t in tests if t is not None]  # a zero-variance martingale is no test (martingale_test)

    tests = [support_test(ts.p_token.ravel(), None if ts.at_edge is None else ts.at_edge.ravel()),
             *family("pooled", np.s_[:, :])]
    for position in range(ts.u.shape[1]):
        tests += family(f"position {position + 1}", np.s_[:, position])
    pooled = sum(map(is_pooled, tests))
    weights = [POOLED_SHARE / pooled if is_pooled(t) else (1 - POOLED_SHARE) / (len(tests) - pooled) for t in tests]
    for test, rejected in zip(tests, stats.weighted_holm([t.p_value for t in tests], weights, alpha)):
        test.rejected = rejected
    return tests
