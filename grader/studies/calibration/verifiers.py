"""Error control of the lesson 1–2 checks: how often a correct verifier fails, over many seeds.

    python -m grader.studies.calibration.verifiers --seeds 200 --workers 2

1. Times `grader check max_fn speculative_decoding_verify speculative_sampling
   greedy_match --impl solutions` (the course asks for ≤ 20 s on a 2-core CPU).
2. Tail accuracy: a check fails as soon as one of its m ≈ 44 tests has p ≤ 1e-3 / m, so
   each test's p-value must be right that far out. For every law test of every case,
   ``--reps`` multinomial samples of the size the check draws (a stratum: its expected
   size) estimate P(p ≤ 1e-3 / 44) / (1e-3 / 44), for the G-test with cells ≥ 20 (what the
   checks use) and for Pearson's χ² with cells ≥ 5.
3. Runs the two statistical checks on the reference and on the correct variants in
   tests/valid_variants/, which draw their random numbers in other orders and other
   ways, with seeds 0..N−1. Each run records its verdict (family error rate 1e-3) and
   its smallest Holm-adjusted p-value, ``m · min p``: the family level at which it would
   have failed. A calibrated check fails at most a fraction ``a`` of the runs at level ``a``.
"""
import argparse
import importlib
import json
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

STATISTICAL = ("speculative_decoding_verify", "speculative_sampling")
ALL_FOUR = ("max_fn", "speculative_decoding_verify", "speculative_sampling", "greedy_match")
IMPLEMENTATIONS = ["solutions"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "valid_variants").glob("*.py"))
LEVELS = (0.05, 0.01, 1e-3)
TESTS_PER_CHECK = 44
SETTINGS = {"G-test, cells ≥ 20 (used)": ("log-likelihood", 20.0),
            "Pearson χ², cells ≥ 5": ("pearson", 5.0)}


def family_levels(impl: str, exercise_id: str, seeds: list[int]) -> tuple[list[float], list[float]]:
    """For each seed, ``m · min p`` (0 when a deterministic property failed), and all p-values."""
    import torch

    from grader import exercises, implementation
    from grader.checks.harness import CheckRun, Stop

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


def tail_ratio(law: dict, n: int, statistic: str, min_expected: float, reps: int, rng) -> float | None:
    """P(p-value ≤ 1e-3 / 44) / (1e-3 / 44) for a test of ``n`` draws from ``law`` itself."""
    import numpy as np
    from scipy.stats import chi2

    from grader.oracle import stats

    cells = stats.pooled_cells(law, n, min_expected)
    if len(cells) < 2:
        return None  # nothing to test
    level = 1e-3 / TESTS_PER_CHECK
    probs = np.array([sum(law[o] for o in cell) for cell in cells])
    probs /= probs.sum()
    expected = probs * n
    critical = chi2.isf(level, len(cells) - 1)
    hits = 0
    for _ in range(reps // 100_000):
        observed = rng.multinomial(n, probs, size=100_000).astype(float)
        if statistic == "pearson":
            value = ((observed - expected) ** 2 / expected).sum(axis=1)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                value = 2 * np.where(observed > 0, observed * np.log(observed / expected), 0).sum(axis=1)
        hits += int((value >= critical).sum())
    return hits / (reps // 100_000 * 100_000) / level


def tail_accuracy(reps: int) -> None:
    import numpy as np

    from grader.checks.speculative_sampling import CASES
    from grader.oracle import verifier_laws

    rng = np.random.default_rng(0)
    ratios = {name: {} for name in SETTINGS}  # setting -> test kind -> ratios
    for case in CASES:
        count_law = verifier_laws.accepted_count_law(case.p, case.q)
        tests = [("joint law", verifier_laws.emission_law(case.p, case.q), case.draws),
                 ("accepted count", count_law, case.draws),
                 ("first token", verifier_laws.first_token_law(case.p), case.draws),
                 ("bonus token", verifier_laws.bonus_law(case.p), round(case.draws * count_law.get(case.k, 0)))]
        tests += [("correction, one stratum", law, round(case.draws * count_law.get(i, 0)))
                  for i, law in verifier_laws.correction_laws(case.p, case.q).items()]
        for name, (statistic, min_expected) in SETTINGS.items():
            for kind, law, n in tests:
                ratio = tail_ratio(law, n, statistic, min_expected, reps, rng)
                if ratio is not None:
                    ratios[name].setdefault(kind, []).append(ratio)
    print(f"| test ({reps:,} samples each) | tests | " +
          " | ".join(f"{name}: mean, max" for name in SETTINGS) + " |")
    print("| --- | --- |" + " --- |" * len(SETTINGS))
    for kind in ratios[next(iter(SETTINGS))]:
        cells = " | ".join(f"{np.mean(r[kind]):.2f}, {max(r[kind]):.2f}" for r in ratios.values())
        print(f"| {kind} | {len(ratios[next(iter(SETTINGS))][kind])} | {cells} |")
    for name, by_kind in ratios.items():
        flat = [r for kind in by_kind.values() for r in kind]
        print(f"\n{name}: mean ratio {np.mean(flat):.2f} over {len(flat)} tests; Bonferroni's "
              f"bound on the family error rate becomes {np.mean(flat) * 1e-3:.1e}", end="")
    print("\n")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m grader.studies.calibration.verifiers",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=10, help="seeds per task")
    parser.add_argument("--reps", type=int, default=1_000_000, help="samples per tail estimate")
    args = parser.parse_args()

    time_all_four()
    tail_accuracy(args.reps)
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
            rates = " | ".join(f"{sum(level <= a for level in levels)}/{len(levels)}" for a in LEVELS)
            small = sum(p < 0.01 for p in p_values) / max(len(p_values), 1)
            print(f"| `{impl}` | {exercise_id} | {len(levels)} | {rates} | {small:.4f} "
                  f"of {len(p_values)} |", flush=True)
    print(f"\n{len(jobs) * args.seeds} check runs in {time.perf_counter() - start:.0f} s "
          f"({args.workers} workers); a verdict fails at family level 1e-3.")


if __name__ == "__main__":
    main()
