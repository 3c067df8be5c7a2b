"""Are the audit's drafter tests (region, mode) calibrated in the tails where they fail an audit?

    python scripts/audit_martingale_tails.py [--seed 98] [--simulations 200000]

One exact audit's draws (tests/audit_samplers/too_cold.py at r = 0: the target sampled at the
settings' own law, T = 0.8, top-p 0.95) give each generated token's chance under p of the
region indicator ``1[q(x) > p(x)]`` and of the mode indicator ``1[x = argmax q]``. The audit's
z-statistic divides the sum of indicators minus chances by its standard deviation and reads a
normal p-value. Here the indicators are drawn afresh as independent Bernoulli(chance), many
times, and the share of |z| at or beyond each threshold (the pooled tests' is 3.84, for
weighted Holm's 1.25e-4) is printed beside the normal law's: what the normal approximation
costs given those chances, apart from any dependence between tokens. One torch thread.
"""
import argparse
import importlib.util
import os
import time
from pathlib import Path

import numpy as np
import torch
from scipy import stats as scipy_stats

from grader.audit import adapters, command
from grader.audit.draws import draw
from grader.models import load_pair
from grader.models.corpus import held_out_prompts

SAMPLER = Path(__file__).resolve().parents[1] / "tests" / "audit_samplers" / "too_cold.py"
THRESHOLDS = (2.5, 3.0, 3.5, float(scipy_stats.norm.isf(1.25e-4 / 2)))
CHUNK = 5000  # simulated audits per batch: [CHUNK, tokens] draws at a time


def exact_audit_chances(seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (indicators, chances) ``[tokens]`` of one exact audit at the default draws."""
    target, drafter, tokenizer = load_pair("cpu")
    spec = importlib.util.spec_from_file_location("too_cold", SAMPLER)
    sampler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sampler)
    adapter = sampler.TooCold(target, adapters.Sampling(0.8, None, 0.95), command.DEFAULT_NEW_TOKENS, colder=1.0)
    prompts = held_out_prompts(tokenizer, command.PROMPTS, command.PROMPT_LENGTH)
    ts = draw(adapter, prompts, command.DEFAULT_TEXTS, command.DEFAULT_NEW_TOKENS, seed, region_model=drafter).token_stats
    return {"drafter region": (ts.in_region.ravel(), ts.region_mass.ravel()),
            "drafter mode": (ts.is_mode.ravel(), ts.mode_mass.ravel())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=98, help="the audit's seed")
    parser.add_argument("--simulations", type=int, default=200_000)
    args = parser.parse_args()
    torch.set_num_threads(1)
    start, load = time.perf_counter(), os.getloadavg()
    rng = np.random.default_rng(0)
    for name, (hits, chances) in exact_audit_chances(args.seed).items():
        sd = float(np.sqrt(np.sum(chances * (1 - chances))))
        z = np.concatenate([((rng.random((CHUNK, len(chances))) < chances).sum(1) - chances.sum()) / sd
                            for _ in range(-(-args.simulations // CHUNK))])
        print(f"{name}: {len(chances)} tokens, mean chance {chances.mean():.3f}, sd {sd:.2f}, this audit's "
              f"z {(hits - chances).sum() / sd:+.2f}; {len(z)} simulated audits, skewness {scipy_stats.skew(z):+.3f}")
        for t in THRESHOLDS:
            print(f"  P(|z| ≥ {t:.2f}): simulated {np.mean(np.abs(z) >= t):.2e} (upper {np.mean(z >= t):.2e}, "
                  f"lower {np.mean(z <= -t):.2e}), normal {2 * scipy_stats.norm.sf(t):.2e}")
    print(f"load before {load}, after {os.getloadavg()}; {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
