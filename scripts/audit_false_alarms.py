"""Measure `grader audit` on the shipped pair: how often exact samplers are wrongly failed, and
whether each replayed bug (tests/audit_mutants/) is caught, at the default draw count.

    python scripts/audit_false_alarms.py [--seeds 20] [--jobs 2]

Exact samplers: the course's reference loop (solutions' speculative_generate) and transformers'
assisted generation, each audited under ``--seeds`` seeds (the PIT, support and drafter-region
tests, per position and pooled, Holm at 1e-3). Mutants: each audited once, under seed 0. Prints
one row per audit, then the false-alarm counts (with an exact binomial 95 % upper bound on the
rate) and the load of the machine before and after. One torch thread per worker.
"""
import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scipy import stats as scipy_stats

from grader.audit import command

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "tests" / "audit_mutants"


def audit(job: tuple) -> tuple:
    """(label, seed, passed, pooled (name, statistic, p) list, rejected names, seconds) of one audit."""
    import torch

    from grader.audit import adapters
    from grader.audit.draws import draw
    from grader.audit.pit import audit_tests
    from grader.models import load_pair
    from grader.models.corpus import held_out_prompts

    torch.set_num_threads(1)
    label, sampler, impl, seed, texts, new_tokens = job
    target, drafter, tokenizer = load_pair("cpu")
    settings = adapters.Sampling(0.8, None, 0.95)  # grader audit's defaults
    adapter = adapters.make(sampler, target, drafter, settings, new_tokens, 4, impl)
    prompts = held_out_prompts(tokenizer, command.PROMPTS, command.PROMPT_LENGTH)
    start = time.perf_counter()
    tests = audit_tests(draw(adapter, prompts, texts, new_tokens, seed, region_model=drafter).token_stats)
    pooled = [(t.name, t.statistic, t.p_value) for t in tests if "position" not in t.name]
    rejected = [t.name for t in tests if t.rejected]
    return label, seed, not rejected, pooled, rejected, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--texts", type=int, default=command.DEFAULT_TEXTS)
    parser.add_argument("--new-tokens", type=int, default=command.DEFAULT_NEW_TOKENS)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    from grader.studies import mutants

    built = Path(tempfile.mkdtemp(prefix="audit_mutants_"))
    jobs = [(m.name, "lessons", str(mutants.build(m, built)), 0, args.texts, args.new_tokens)
            for m in mutants.all_mutants(MUTANTS)]
    for seed in range(args.seeds):
        jobs += [("reference", "lessons", "solutions", seed, args.texts, args.new_tokens),
                 ("hf-assisted", "hf-assisted", "solutions", seed, args.texts, args.new_tokens)]
    print(f"load before: {os.getloadavg()}; {len(jobs)} audits of {args.texts} texts × {args.new_tokens} tokens, "
          f"{args.jobs} workers", flush=True)
    start = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for label, seed, passed, pooled, rejected, seconds in pool.map(audit, jobs):
            results.append((label, seed, passed))
            shown = "; ".join(f"{name.split(',')[0]} {stat:+.3g} (p = {p:.2g})" for name, stat, p in pooled)
            print(f"| {label} | {seed} | {'PASS' if passed else 'FAIL'} | {shown} | {len(rejected)} rejected | "
                  f"{seconds:.0f} s |", flush=True)
    print(f"\nload after: {os.getloadavg()}; {time.perf_counter() - start:.0f} s in all")
    for label in ("reference", "hf-assisted"):
        runs = [passed for name, _, passed in results if name == label]
        alarms = runs.count(False)
        upper = scipy_stats.beta.ppf(0.95, alarms + 1, len(runs) - alarms) if runs else float("nan")
        print(f"{label}: {alarms} false alarms in {len(runs)} seeds (95 % upper bound on the rate {upper:.2f})")
    missed = [name for name, _, passed in results if name not in ("reference", "hf-assisted") and passed]
    print("every mutant caught" if not missed else f"mutants missed: {', '.join(missed)}")
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
