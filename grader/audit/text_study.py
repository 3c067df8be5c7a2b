"""The audit's false-alarm rate on whole texts drawn autoregressively (issue 49, item 3).

``null_study`` keeps a real audit's contexts fixed and redraws only the token at each; it cannot
see two things a real exact sampler does: each token's law depends on the tokens drawn before
it in the same text (the pooled drafter martingales' dependence), and a sampler draws from its
own float32 laws computed with a KV cache while the audit computes its laws again, in one
forward over the whole text, then in float64. This study draws whole texts, token by token,
from the target's law, on the course's tiny pair (a two-layer Llama target and a one-layer
GPT-2 drafter over 6 tokens, float64: ``grader.oracle.tiny``), at the default audit's draws
(96 texts × 40 tokens after 8 prompts, temperature 0.8, top-p 0.95). Each simulated audit is
then decided by the audit's own code: ``draws.logits_of_texts`` (the forward over the whole
texts), ``draws.statistics_along`` (the laws after the settings in float64, the PIT uniforms,
the tests' fields) and ``pit.audit_tests`` (all the tests, weighted Holm at ``pit.ALPHA``).

Arms (``ARMS``), each a way of drawing the texts:

- ``float64``: every token from the law the audit computes there (the float64 target, its
  logits rounded to float32 as ``draws.logits_of_texts`` does, the processor in float64; drawn
  with a KV cache, whose float64 logits may differ from the audit's forward in their last bits,
  which the rounding to float32 hides: the largest gap is recorded): the dependence between a
  text's tokens alone;
- ``float32-cache``: as a sampler draws (a float32 copy of the target, one token a forward
  with a KV cache, the processor in float32), the audit still computing in float64 from
  the float64 target: the float32/float64 gap on top;
- ``colder`` (not a null arm: to show the study can fail): the float64 arm's law at half the
  temperature.
"""
import copy
import time
from dataclasses import dataclass

import numpy as np
import torch

from grader.audit.adapters import Sampling
from grader.audit.draws import logits_of_texts, statistics_along
from grader.audit.pit import ALPHA, audit_tests
from grader.oracle import tiny

MODEL_SEED = 7  # the tiny pair of the course's loop checks (grader/checks/loop_properties.py)
PROMPTS, PROMPT_LENGTH = 8, 8  # 8 prompt + 40 generated tokens fit the tiny models' 64 positions
TEXTS, NEW_TOKENS = 96, 40  # the default audit's draws (grader/audit/command.py)
SETTINGS = Sampling(0.8, None, 0.95)  # the default audit's settings
ARMS = ("float64", "float32-cache", "colder")
NULL_ARMS = ARMS[:2]


@dataclass
class StudyPair:
    """The tiny pair in float64 (the audit's models), the target's float32 copy (the sampler's)
    and the prompts ``[PROMPTS, PROMPT_LENGTH]`` (token ids, seeded)."""
    target: torch.nn.Module
    drafter: torch.nn.Module
    target32: torch.nn.Module
    prompts: torch.Tensor

    @classmethod
    def tiny(cls) -> "StudyPair":
        target, drafter = tiny.tiny_pair(MODEL_SEED)
        prompts = torch.randint(0, tiny.TINY_VOCAB, (PROMPTS, PROMPT_LENGTH),
                                generator=torch.Generator().manual_seed(MODEL_SEED))
        return cls(target, drafter, copy.deepcopy(target).float(), prompts)

    @classmethod
    def shipped(cls) -> "StudyPair":
        """The shipped pair (float32, as the real audit runs it: its laws are the audit's) and
        the audit's held-out prompts, for ``text_sums`` (its audits cost seconds here)."""
        from grader.audit.command import PROMPT_LENGTH, PROMPTS as COUNT
        from grader.models import load_pair
        from grader.models.corpus import held_out_prompts

        target, drafter, tokenizer = load_pair("cpu")
        return cls(target, drafter, target, torch.tensor(held_out_prompts(tokenizer, COUNT, PROMPT_LENGTH)))


@dataclass
class StudyAudit:
    """One simulated audit: the verdict (``alarm``), the rejected tests, every test's p-value
    (``p_values``: name -> p), the largest gap between the laws drawn from and the laws the
    audit computed at the drawn tokens (``law_gap``, max |Δp| over the vocabulary) and the
    seconds it took (drawing, then the audit)."""
    alarm: bool
    rejected: list[str]
    p_values: dict[str, float]
    law_gap: float
    seconds: float


def law_of(arm: str, settings: Sampling = SETTINGS):
    """``(law, model of StudyPair, cache)`` of an arm: ``law`` maps the last logits ``[B, V]``
    to the probabilities drawn from."""
    colder = Sampling(settings.temperature / 2, settings.top_k, settings.top_p)
    if arm == "float64":  # the audit's own law: float32-rounded logits, processor in float64
        return (lambda logits: settings.processor(logits.shape[-1])(logits.float().double())), "target", True
    if arm == "float32-cache":
        return (lambda logits: settings.processor(logits.shape[-1])(logits)), "target32", True
    if arm == "colder":
        return (lambda logits: colder.processor(logits.shape[-1])(logits.float().double())), "target", False
    raise ValueError(f"unknown arm {arm!r}; expected one of {', '.join(ARMS)}")


def audit_number(arm: str, index: int, seed: int) -> int:
    """The seed of audit ``index`` of ``arm``: each arm's draws are its own (independent of the
    other arms'), so the arms' counts are independent studies."""
    return (seed * len(ARMS) + ARMS.index(arm)) * 1_000_003 + index


@torch.inference_mode()
def draw_texts(model, prompts: torch.Tensor, new_tokens: int, law, generator: torch.Generator,
               cache: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Texts drawn token by token: ``(tokens [B, new_tokens], laws [B, new_tokens, V] float64)``,
    each token drawn (``torch.multinomial``, ``generator``) from ``law(logits)`` at the text
    before it; ``cache``: one token a forward with a KV cache (as samplers run), else a forward
    over the whole prefix each step (row for row the forward the audit runs)."""
    ids, past, tokens, laws = prompts, None, [], []
    for _ in range(new_tokens):
        if cache:
            out = model(ids if past is None else ids[:, -1:], cache=past, use_cache=True)
            past = out.cache
        else:
            out = model(ids, use_cache=False)
        probs = law(out.logits[:, -1])
        token = torch.multinomial(probs, 1, generator=generator)
        tokens.append(token)
        laws.append(probs.double())
        ids = torch.cat([ids, token], dim=1)
    return torch.cat(tokens, dim=1), torch.stack(laws, dim=1)


def audit_batch(pair: StudyPair, arm: str, first: int, count: int, seed: int = 0, texts: int = TEXTS,
                new_tokens: int = NEW_TOKENS, alpha: float = ALPHA) -> list[StudyAudit]:
    """Simulated audits ``first`` … ``first + count − 1`` of ``arm``: ``texts`` texts each after
    the prompts (cycled), all drawn at once (one batch: the tiny models' forwards cost their
    overhead, not their size) with a generator seeded by ``audit_number(arm, first, seed)``,
    then each audit's own laws (one forward over the whole texts), statistics (PIT uniforms
    from its ``audit_number``) and decision at ``alpha``. The seconds of the batch's draw and
    forwards are shared evenly among its audits."""
    law, model, cache = law_of(arm)
    start = time.perf_counter()
    prompts = pair.prompts[torch.arange(count * texts) % len(pair.prompts)]
    tokens, drawn_laws = draw_texts(getattr(pair, model), prompts, new_tokens, law,
                                    torch.Generator().manual_seed(audit_number(arm, first, seed)), cache)
    whole = torch.cat([prompts, tokens], dim=1)
    target_logits = logits_of_texts(pair.target, whole, prompts.shape[1])
    drafter_logits = logits_of_texts(pair.drafter, whole, prompts.shape[1])
    gaps = (drawn_laws - SETTINGS.processor(target_logits.shape[-1])(target_logits.double())).abs().amax(dim=(1, 2))
    shared = (time.perf_counter() - start) / count
    found = []
    for k in range(count):
        start, rows = time.perf_counter(), slice(k * texts, (k + 1) * texts)
        stats = statistics_along(SETTINGS, target_logits[rows], drafter_logits[rows], tokens[rows],
                                 audit_number(arm, first + k, seed))
        tests = audit_tests(stats, alpha)
        found.append(StudyAudit(any(t.rejected for t in tests), [t.name for t in tests if t.rejected],
                                {t.name: t.p_value for t in tests}, float(gaps[rows].max()),
                                shared + time.perf_counter() - start))
    return found


def one_sided_upper(alarms: int, audits: int, confidence: float = 0.95) -> float:
    """The exact (Clopper–Pearson) one-sided upper bound on an alarm rate: the upper end of the
    two-sided interval at ``2 · confidence − 1`` (scipy.stats)."""
    from scipy import stats

    return float(stats.binomtest(alarms, audits).proportion_ci(2 * confidence - 1, method="exact").high)


def test_kind(name: str) -> str:
    """A test's kind, its position dropped: ``"drafter mode (z), position"`` for any position."""
    head, _, where = name.rpartition(", ")
    return f"{head}, position" if where.startswith("position") else name


def p_value_summary(name: str, values: np.ndarray) -> dict:
    """How valid p-values ``values`` look: their count, KS tests against U(0, 1) (two-sided, and
    one-sided for too many small p-values, ``alternative="greater"``: the empirical CDF above
    the uniform's), and the counts at or below 1e-3 and 1e-4 against those expected."""
    from scipy import stats

    n = int(values.size)
    return {"test": name, "n": n, "ks_p": float(stats.kstest(values, "uniform").pvalue),
            "ks_small_p": float(stats.kstest(values, "uniform", alternative="greater").pvalue),
            "at_1e-3": int(np.sum(values <= 1e-3)), "expected_1e-3": 1e-3 * n,
            "at_1e-4": int(np.sum(values <= 1e-4)), "expected_1e-4": 1e-4 * n}


def summary(audits: list[StudyAudit]) -> dict:
    """One arm's alarms, the rate's exact one-sided 95 % upper bound and two-sided 95 % interval,
    every test's p-values (``p_value_summary``) and each per-position kind's, all positions
    together; the largest law gap; the seconds per audit (median) and in all."""
    from scipy import stats

    alarms, n = sum(a.alarm for a in audits), len(audits)
    names = [name for name in dict.fromkeys(name for a in audits for name in a.p_values)
             if not name.startswith("support")]  # its p-value is 0 or 1 by design: alarms count it
    per_test = [p_value_summary(name, np.array([a.p_values[name] for a in audits if name in a.p_values]))
                for name in names]
    kinds = list(dict.fromkeys(test_kind(name) for name in names if test_kind(name) != name))
    per_kind = [p_value_summary(kind, np.array([p for a in audits for name, p in a.p_values.items()
                                                if test_kind(name) == kind])) for kind in kinds]
    interval = stats.binomtest(alarms, n).proportion_ci(0.95, method="exact")
    return {"audits": n, "alarms": alarms, "upper_95_one_sided": one_sided_upper(alarms, n),
            "ci95": [float(interval.low), float(interval.high)],
            "rejected": sorted(name for a in audits for name in a.rejected),
            "tests": per_test, "positions_together": per_kind,
            "largest_law_gap": max(a.law_gap for a in audits),
            "seconds_median": float(np.median([a.seconds for a in audits])),
            "seconds": float(sum(a.seconds for a in audits))}


def text_sums(pair: StudyPair, arm: str, texts: int, seed: int = 0, batch: int = 2400) -> dict[str, np.ndarray]:
    """Per text, the pooled drafter martingales' parts: ``"region"`` and ``"mode"`` ``[texts, 2]``,
    each row (Σ (hit − chance), Σ chance (1 − chance)) over the text's ``NEW_TOKENS`` tokens, for
    ``texts`` texts of ``arm`` drawn ``batch`` at a time (the audit's own laws and statistics).
    An audit's pooled z is Σ S / √Σ V over its ``TEXTS`` independent texts, so resampling these
    rows gives the law of that z under the real dependence (``pooled_z_tail``)."""
    law, model, cache = law_of(arm)
    parts = {"region": [], "mode": []}
    for first in range(0, texts, batch):
        count = min(batch, texts - first)
        prompts = pair.prompts[torch.arange(count) % len(pair.prompts)]
        generator = torch.Generator().manual_seed(audit_number(arm, 10**6 + first, seed))  # apart from the audits'
        tokens, _ = draw_texts(getattr(pair, model), prompts, NEW_TOKENS, law, generator, cache)
        whole = torch.cat([prompts, tokens], dim=1)
        stats = statistics_along(SETTINGS, logits_of_texts(pair.target, whole, prompts.shape[1]),
                                 logits_of_texts(pair.drafter, whole, prompts.shape[1]), tokens, first)
        for kind, hits, chances in (("region", stats.in_region, stats.region_mass),
                                    ("mode", stats.is_mode, stats.mode_mass)):
            parts[kind].append(np.stack([(hits - chances).sum(1), (chances * (1 - chances)).sum(1)], axis=1))
    return {kind: np.concatenate(rows) for kind, rows in parts.items()}


def pooled_z_tail(rows: np.ndarray, audits: int, thresholds: tuple[float, ...], seed: int = 0,
                  texts: int = TEXTS) -> dict[float, int]:
    """How many of ``audits`` resampled audits (``texts`` rows of ``rows`` ``[m, 2]`` drawn with
    replacement each, ``text_sums``'s per-text (S, V)) have a two-sided normal p-value of
    z = Σ S / √Σ V at or below each threshold: the pooled test's level under the texts' real law.
    The S's are centred first: their exact mean is 0 (a martingale), the pool's is noise that
    a resampled sum of ``texts`` of them would carry as a bias."""
    from scipy import stats

    rows = np.stack([rows[:, 0] - rows[:, 0].mean(), rows[:, 1]], axis=1)
    rng = np.random.default_rng([seed, 49])
    counts = dict.fromkeys(thresholds, 0)
    for done in range(0, audits, 20_000):
        picked = rows[rng.integers(0, len(rows), (min(20_000, audits - done), texts))]
        z = picked[..., 0].sum(1) / np.sqrt(picked[..., 1].sum(1))
        p = 2 * stats.norm.sf(np.abs(z))
        for t in thresholds:
            counts[t] += int(np.sum(p <= t))
    return counts
