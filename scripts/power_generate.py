"""Power and false failures of the `speculative_generate` and `kv_cache` checks.

Runs every mutant of those two exercises (tests/mutants/) under many seeds and counts
how often its check fails it (the detection rate, which must be at least 0.99), then runs
the reference under as many seeds and counts its failures (the false-failure rate, meant
to be at most 1e-3 per check). Because a few dozen seeds cannot measure a rate that
small, it also runs the checks' statistical tests alone many times on outcomes drawn
from the exact laws themselves. Prints the time each check takes on the reference, and
writes it all into docs/statistics_generate.md.

    python scripts/power_generate.py                      # 20 seeds, 2 processes
    python scripts/power_generate.py --seeds 20 --reference-seeds 40 --calibration 6000
"""
import argparse
import statistics
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scipy import stats as scipy_stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.bench.timing import load_averages  # noqa: E402
from grader.checks import speculative_generate as check  # noqa: E402
from grader.checks.loop_properties import models  # noqa: E402
from grader.oracle import stats  # noqa: E402
from grader.selftest import mutants  # noqa: E402

EXERCISES = ("speculative_generate", "kv_cache")
OUTPUT = ROOT / "docs" / "statistics_generate.md"


run_one = mutants.graded  # one check under one seed; scripts/power_ngram.py imports it from here


def calibration(job: tuple[int, int]) -> int:
    """Of ``replications`` sets of outcomes drawn from the exact laws, how many the check's
    statistical tests reject after Holm's correction: false failures of the tests alone.

    The joint and per-token tests of a case use one set of sequences, as in the check; the
    acceptance rate is drawn apart from the sequences of its case (their joint law is not
    computed), which makes those tests independent here rather than correlated.
    """
    import numpy as np
    import torch

    from grader.checks.harness import FAMILY_ERROR_RATE
    from grader.oracle import acceptance, laws
    from solutions.autoregressive import as_list

    torch.set_num_threads(1)
    replications, seed = job
    target, drafters = models()
    cases = [check.ACCEPTANCE_CASE] + check.LAW_CASES
    case_laws = [laws.sequence_law(target, c.prompt, c.length, c.processor, as_list(c.eos)) for c in cases]
    a = check.ACCEPTANCE_CASE
    rate_law = acceptance.rate_law(target, drafters[a.drafter], a.prompt, a.gamma, a.length,
                                   a.processor, a.first_target)
    rng = np.random.default_rng(seed)

    def draw(law: dict, n: int) -> list:
        outcomes = list(law)
        probs = np.array([law[o] for o in outcomes])
        return [outcomes[i] for i in rng.choice(len(outcomes), size=n, p=probs / probs.sum())]

    failures = 0
    for _ in range(replications):
        p_values = [stats.goodness_of_fit(draw(rate_law, a.draws), rate_law).p_value]
        for case, law in zip(cases, case_laws):
            samples = draw(law, case.draws)
            p_values.append(stats.goodness_of_fit(samples, law).p_value)
            for i in range(case.length):
                tokens = [s[i] if i < len(s) else None for s in samples]
                p_values.append(stats.goodness_of_fit(tokens, laws.marginal(law, i)).p_value)
        failures += any(stats.holm(p_values, FAMILY_ERROR_RATE))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="seeds per mutant")
    parser.add_argument("--reference-seeds", type=int, default=20, help="seeds for the reference")
    parser.add_argument("--calibration", type=int, default=3000,
                        help="replications of the statistical tests on exact draws")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    args = parser.parse_args()

    found = [m for m in mutants.all_mutants(ROOT / "tests" / "mutants") if m.exercise in EXERCISES]
    paths = {m.name: str(ROOT / "tests" / "mutants" / f"{m.name}.py") for m in found}
    jobs = [(m.name, m.exercise, paths[m.name], seed) for m in found for seed in range(args.seeds)]
    jobs += [("reference", exercise, "solutions", seed)
             for seed in range(args.reference_seeds) for exercise in EXERCISES]
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for result in pool.map(mutants.graded, jobs):
            results.append(result)
            print(*result[:4], f"{result[5]:.1f}s", flush=True)

    shares = [(args.calibration // args.jobs + (i < args.calibration % args.jobs), i) for i in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        calibrated = sum(pool.map(calibration, shares))

    rows, all_detected = [], True
    for m in found:
        mine = [r for r in results if r[0] == m.name]
        detected = sum(r[3] == "failed" for r in mine)
        all_detected &= detected == len(mine)
        caught_by = Counter(p.split(" (")[0] for r in mine for p in r[4]).most_common(2)
        rows.append(f"| `{m.name}` | {m.exercise} | {m.description} | {detected}/{len(mine)} | "
                    f"{', '.join(name for name, _ in caught_by)} |")
    reference = {e: [r for r in results if r[0] == "reference" and r[1] == e] for e in EXERCISES}
    false_failures = {e: sum(r[3] != "passed" for r in runs) for e, runs in reference.items()}
    # timed alone, one check at a time, as a learner runs them
    load_before = load_averages()
    seconds = {e: [mutants.graded(("reference", e, "solutions", seed))[5] for seed in range(3)] for e in EXERCISES}
    load = f"load averages (1, 5, 15 minutes) {load_before} before the timing, {load_averages()} after"
    both = sum(statistics.median(s) for s in seconds.values())
    command = "python " + " ".join([Path(__file__).relative_to(ROOT).as_posix()] + sys.argv[1:])
    write_report(rows, false_failures, calibrated, seconds, both, load, args, command)
    print(f"both checks on the reference: {both:.1f} s (the sum of each check's median of 3 runs)")
    print(f"false failures: {false_failures} over {args.reference_seeds} seeds each; the tests "
          f"alone on exact draws: {calibrated} of {args.calibration}")
    print(f"every mutant detected under every seed: {all_detected}; table in {OUTPUT.relative_to(ROOT)}")


def write_report(rows, false_failures, calibrated, seconds, both, load, args, command):
    timing = ", ".join(f"{e} {statistics.median(s):.1f} s (max {max(s):.1f} s)" for e, s in seconds.items())
    failures = "; ".join(f"{e}: {n} of {args.reference_seeds}" for e, n in false_failures.items())
    len_tests = 1 + sum(1 + case.length for case in [check.ACCEPTANCE_CASE] + check.LAW_CASES)
    interval = scipy_stats.binomtest(calibrated, args.calibration).proportion_ci(0.95)  # Clopper-Pearson
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(f"""# The `speculative_generate` and `kv_cache` checks: power and false failures

Generated by `{command}` ({args.seeds} seeds per mutant, seeds 0–{args.seeds - 1}).

A mutant is the reference loop with one known bug (`tests/mutants/`). "Detected" counts
the seeds under which its check failed it; every one must be detected under every seed
(a detection rate of at least 0.99). "Caught by" names the properties that failed most
often.

| mutant | check | bug | detected | caught by |
| --- | --- | --- | --- | --- |
{chr(10).join(rows)}

## False failures

The reference under seeds 0–{args.reference_seeds - 1}: {failures}.
More seeds, the valid variants, and how a failing seed is examined:
[false_failures.md](false_failures.md).

The statistical tests alone ({len_tests} per check: for each of the five sampled cases
the joint law and the law of each token, and the law of the acceptance rate), run
{args.calibration} times on outcomes drawn from the exact laws, then Holm-corrected at
family error rate 1e-3: {calibrated} rejections, a rate of {calibrated / args.calibration:.1e}
(95% interval {interval.low:.1e} to {interval.high:.1e}; a correct loop draws from those
laws, so this is its false-failure rate, up to the tests' correlation). Holm's thresholds
lie far in the tail (about 1e-3 / {len_tests} ≈ {1e-3 / len_tests:.0e}), where the χ² law of
Pearson's statistic is too light for cells expected 5 to 20 times (measured in
[statistics.md](statistics.md): 2 to 6 times too many p-values that small). So `grader/oracle/stats.py`
checks every χ² p-value below {stats.SIMULATE_BELOW:g} by simulation: the same statistic on
the same pooled cells for up to {stats.SIMULATIONS + 1:,} multinomial samples drawn from the
exact law, seeded from the observed counts, and keeps the larger p-value. Each test is
then valid at every threshold Holm's procedure uses, and Holm's bound of 1e-3 holds.

## Time

Median of three runs of each check on the reference, one at a time, in this process
(one thread; {load}): {timing}; both checks together {both:.1f} s.
""")


if __name__ == "__main__":
    main()
