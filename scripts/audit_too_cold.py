"""How often `grader audit` catches a sampler too cold by r (0.18) at its default draws, with
the pooled tests given half of the false-alarm rate (weighted Holm, the audit's procedure)
and, on the same draws, with plain Holm over all tests (the procedure before it).

    python scripts/audit_too_cold.py [--seeds 20] [--first-seed 0] [--r 0.18] [--jobs 1]

The sampler is tests/audit_samplers/too_cold.py (the target sampled at T / (1 + r) while the
settings say T = 0.8, top-p 0.95); ``--r 0`` makes it exact, and its counts false alarms.
Prints one row per seed (the pooled p-values, both verdicts), the catch counts with exact
binomial 95 % intervals, and the machine's load before and after. One torch thread per worker.
"""
import argparse
import importlib.util
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scipy import stats as scipy_stats

from grader.audit import command

SAMPLER = Path(__file__).resolve().parents[1] / "tests" / "audit_samplers" / "too_cold.py"


def audit(job: tuple) -> tuple:
    """(seed, pooled (name, p) list, caught by weighted Holm, caught by plain Holm, seconds)."""
    import torch

    from grader.audit import adapters
    from grader.audit.draws import draw
    from grader.audit.pit import ALPHA, audit_tests, is_pooled
    from grader.models import load_pair
    from grader.models.corpus import held_out_prompts
    from grader.oracle import stats

    torch.set_num_threads(1)
    seed, texts, new_tokens, r = job
    target, drafter, tokenizer = load_pair("cpu")
    spec = importlib.util.spec_from_file_location("too_cold", SAMPLER)
    sampler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sampler)
    adapter = sampler.TooCold(target, adapters.Sampling(0.8, None, 0.95), new_tokens, colder=1 + r)
    prompts = held_out_prompts(tokenizer, command.PROMPTS, command.PROMPT_LENGTH)
    start = time.perf_counter()
    tests = audit_tests(draw(adapter, prompts, texts, new_tokens, seed, region_model=drafter).token_stats)
    plain = stats.holm([t.p_value for t in tests], ALPHA)
    pooled = [(t.name.split(",")[0], t.p_value) for t in tests if is_pooled(t)]
    return seed, pooled, any(t.rejected for t in tests), any(plain), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed, first-seed + 1, …")
    parser.add_argument("--texts", type=int, default=command.DEFAULT_TEXTS)
    parser.add_argument("--new-tokens", type=int, default=command.DEFAULT_NEW_TOKENS)
    parser.add_argument("--r", type=float, default=0.18, help="sampling at T / (1 + r)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}; {args.seeds} audits of {args.texts} texts × {args.new_tokens} "
          f"tokens at T / {1 + args.r:g}, {args.jobs} workers", flush=True)
    start = time.perf_counter()
    caught = {"weighted Holm (pooled tests: half of α)": 0, "plain Holm over all tests": 0}
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    jobs = [(seed, args.texts, args.new_tokens, args.r) for seed in seeds]
    with ProcessPoolExecutor(args.jobs) as pool:
        for seed, pooled, weighted, plain, seconds in pool.map(audit, jobs):
            caught["weighted Holm (pooled tests: half of α)"] += weighted
            caught["plain Holm over all tests"] += plain
            shown = "; ".join(f"{name} p = {p:.2g}" for name, p in pooled)
            print(f"| {seed} | {shown} | {'FAIL' if weighted else 'PASS'} | {'FAIL' if plain else 'PASS'} | "
                  f"{seconds:.0f} s |", flush=True)
    print(f"\nload after: {os.getloadavg()}; {time.perf_counter() - start:.0f} s in all")
    for procedure, count in caught.items():
        low, high = scipy_stats.binomtest(count, args.seeds).proportion_ci(0.95, method="exact")
        print(f"{procedure}: caught in {count} of {args.seeds} seeds (exact 95 % interval {low:.2f}–{high:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
