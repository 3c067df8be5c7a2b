"""Error control of the lesson 1–2 checks: how often a correct verifier fails, over many seeds.

    python scripts/calibrate_verifiers.py --seeds 200 --workers 2

First times `grader check max_fn speculative_decoding_verify speculative_sampling
greedy_match --impl solutions` (the course asks for ≤ 20 s on a 2-core CPU). Then runs the
two statistical checks on the reference and on the correct variants in
tests/valid_variants/, which draw their random numbers in other orders and other ways,
with seeds 0..N−1. Each run records its verdict (family error rate 1e-3) and its smallest
Holm-adjusted p-value, ``m · min p``: the family level at which it would have failed. A
calibrated check fails at most a fraction ``a`` of the runs at level ``a``.
"""
import argparse
import importlib
import json
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STATISTICAL = ("speculative_decoding_verify", "speculative_sampling")
ALL_FOUR = ("max_fn", "speculative_decoding_verify", "speculative_sampling", "greedy_match")
IMPLEMENTATIONS = ["solutions"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "valid_variants").glob("*.py"))
LEVELS = (0.05, 0.01, 1e-3)


def family_levels(impl: str, exercise_id: str, seeds: list[int]) -> tuple[list[float], list[float]]:
    """For each seed, ``m · min p`` (0 when a deterministic property failed), and all p-values."""
    import torch

    from grader import exercises, implementation
    from grader.harness import CheckRun, Stop

    torch.set_num_threads(1)
    exercise = exercises.get(exercise_id)
    check_module = importlib.import_module(exercise.check)
    levels, p_values = [], []
    for seed in seeds:
        check = CheckRun(exercise, implementation.load(impl, exercise.module), seed)
        try:
            check_module.run(check)
        except Stop:
            levels.append(0.0)
            continue
        run_p = [p for _, p in check.tests]
        p_values += run_p
        levels.append(0.0 if check.findings else min(1.0, len(run_p) * min(run_p)))
    return levels, p_values


def time_all_four() -> None:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "grader", "check", *ALL_FOUR, "--impl",
                             "solutions", "--json"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    report = json.loads(result.stdout.strip().splitlines()[-1])
    each = ", ".join(f"{c['exercise']} {c['seconds']:.1f} s" for c in report["checks"])
    print(f"all four checks on the solutions: {wall:.1f} s wall, passed={report['passed']} ({each})\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=10, help="seeds per task")
    args = parser.parse_args()

    time_all_four()
    start = time.perf_counter()
    chunks = [list(range(s, min(s + args.chunk, args.seeds))) for s in range(0, args.seeds, args.chunk)]
    jobs = [(impl, ex) for impl in IMPLEMENTATIONS for ex in STATISTICAL]
    with ProcessPoolExecutor(args.workers) as pool:
        futures = {job: [pool.submit(family_levels, *job, chunk) for chunk in chunks] for job in jobs}
        header = " | ".join(f"fails at {a:g}" for a in LEVELS)
        print(f"| implementation | exercise | runs | {header} | p-values < 0.01 |")
        print("| --- | --- | --- |" + " --- |" * (len(LEVELS) + 1))
        for (impl, exercise_id), parts in futures.items():
            levels, p_values = [], []
            for part in parts:
                more_levels, more_p = part.result()
                levels += more_levels
                p_values += more_p
            rates = " | ".join(f"{sum(l <= a for l in levels)}/{len(levels)}" for a in LEVELS)
            small = sum(p < 0.01 for p in p_values) / max(len(p_values), 1)
            print(f"| `{impl}` | {exercise_id} | {len(levels)} | {rates} | {small:.4f} "
                  f"of {len(p_values)} |", flush=True)
    print(f"\n{len(jobs) * args.seeds} check runs in {time.perf_counter() - start:.0f} s "
          f"({args.workers} workers); a verdict fails at family level 1e-3.")


if __name__ == "__main__":
    main()
