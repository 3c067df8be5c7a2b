"""Power of the lesson 1–2 checks: how often each mutant is caught, over many seeds.

    python scripts/power_verifiers.py --seeds 20 --workers 2

Every mutant in tests/mutants/ whose exercise is max_fn, speculative_decoding_verify,
speculative_sampling or greedy_match is built once and checked with seeds 0..N−1 (in
process, as `grader check --seed S` would check it). Prints a Markdown table of detection
rates; the course asks for ≥ 0.99 (every one of 20 seeds).
"""
import argparse
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EXERCISES = ("max_fn", "speculative_decoding_verify", "speculative_sampling", "greedy_match")


def detections(path: str, exercise_id: str, seeds: list[int]) -> tuple[int, float, Counter]:
    """How many of ``seeds`` fail the check of ``path``, the mean seconds per check, and how
    often each kind of property failed (the case name before ':' left out)."""
    import torch

    from grader import exercises
    from grader.selftest.in_process import run_check
    from grader.verdict import FAILED

    torch.set_num_threads(1)
    start = time.perf_counter()
    failed, kinds = 0, Counter()
    for seed in seeds:
        verdict = run_check(exercises.get(exercise_id), path, seed)
        failed += verdict.status == FAILED
        kinds.update({f.property.split(": ", 1)[-1] for f in verdict.findings})
    return failed, (time.perf_counter() - start) / len(seeds), kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="mutant names (default: all)")
    args = parser.parse_args()

    from grader.selftest import mutants

    chosen = [m for m in mutants.all_mutants(ROOT / "tests" / "mutants") if m.exercise in EXERCISES
              and (args.only is None or m.name in args.only)]
    seeds = list(range(args.seeds))
    with tempfile.TemporaryDirectory() as directory, ProcessPoolExecutor(args.workers) as pool:
        paths = [str(mutants.build(m, Path(directory))) for m in chosen]
        futures = [pool.submit(detections, path, m.exercise, seeds) for m, path in zip(chosen, paths)]
        print("| mutant | exercise | caught | rate | caught most often by | s / check |")
        print("| --- | --- | --- | --- | --- | --- |")
        worst = 1.0
        for mutant, future in zip(chosen, futures):
            caught, seconds, kinds = future.result()
            worst = min(worst, caught / len(seeds))
            by = "; ".join(kind for kind, _ in kinds.most_common(2))
            print(f"| `{mutant.name}`: {mutant.description} | {mutant.exercise} | "
                  f"{caught}/{len(seeds)} | {caught / len(seeds):.2f} | {by} | {seconds:.1f} |",
                  flush=True)
    print(f"\nlowest detection rate: {worst:.2f} over {len(chosen)} mutants, seeds 0..{args.seeds - 1}")


if __name__ == "__main__":
    main()
