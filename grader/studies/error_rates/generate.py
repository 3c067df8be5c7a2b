"""Power and false failures of the `speculative_generate` and `kv_cache` checks.

Runs every mutant of those two exercises (tests/mutants/) under many seeds and counts
how often its check fails it (the detection rate, which must be at least 0.99), then runs
the reference under as many seeds and counts its failures (the false-failure rate, meant
to be at most 1e-3 per check). Because a few dozen seeds cannot measure a rate that
small, it also runs the checks' statistical tests alone many times on outcomes drawn
from the exact laws themselves. Prints the time each check takes on the reference, and
writes it all into docs/statistics_generate.md.

    python -m grader.studies.error_rates generate                      # 20 seeds, 2 processes
    python -m grader.studies.error_rates generate --seeds 20 --reference-seeds 40 --calibration 6000
"""
from concurrent.futures import ProcessPoolExecutor

from scipy import stats as scipy_stats

from grader.checks import speculative_generate as check
from grader.checks.loop_properties import models
from grader.oracle import stats
from grader.studies.error_rates import runs

EXERCISES = ("speculative_generate", "kv_cache")
PAGE = "statistics_generate"


def options(parser) -> None:
    runs.add_options(parser)
    parser.add_argument("--calibration", type=int, default=3000,
                        help="replications of the statistical tests on exact draws")


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
    case_laws = [laws.sequence_law(target, c.prompt, c.max_gen_len, c.processor, as_list(c.eos)) for c in cases]
    a = check.ACCEPTANCE_CASE
    rate_law = acceptance.rate_law(target, drafters[a.drafter], a.prompt, a.shape["gamma"], a.max_gen_len,
                                   a.processor, a.shape["first_target"])
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
            for i in range(case.max_gen_len):
                tokens = [s[i] if i < len(s) else None for s in samples]
                p_values.append(stats.goodness_of_fit(tokens, laws.marginal(law, i)).p_value)
        failures += any(stats.holm(p_values, FAMILY_ERROR_RATE))
    return failures


def run(args) -> dict:
    found = runs.mutants_of(EXERCISES)
    results = runs.run_all(runs.jobs(found, args.seeds, EXERCISES, args.reference_seeds), args.jobs)
    shares = [(args.calibration // args.jobs + (i < args.calibration % args.jobs), i) for i in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        calibrated = sum(pool.map(calibration, shares))
    rows = []
    for m in found:
        caught, total = runs.detected(results, m.name)
        by = runs.caught_by([r for r in results if r.label == m.name])
        rows.append([f"`{m.name}`", m.exercise, m.description, f"{caught}/{total}", ", ".join(n for n, _ in by)])
    false_failures = {e: len(runs.reference_failures(results, e)) for e in EXERCISES}
    seconds, load = runs.timed(EXERCISES)
    tests = 1 + sum(1 + case.max_gen_len for case in [check.ACCEPTANCE_CASE] + check.LAW_CASES)
    interval = scipy_stats.binomtest(calibrated, args.calibration).proportion_ci(0.95)  # Clopper-Pearson
    print(f"both checks on the reference: {runs.total(seconds):.1f} s (the sum of each check's median of 3 runs)")
    print(f"false failures: {false_failures} over {args.reference_seeds} seeds each; the tests "
          f"alone on exact draws: {calibrated} of {args.calibration}")
    print(f"every mutant detected under every seed: {all(r[3] == f'{args.seeds}/{args.seeds}' for r in rows)}")
    return {"seeds": args.seeds, "last_seed": args.seeds - 1, "mutants": rows,
            "reference_last_seed": args.reference_seeds - 1,
            "failures": "; ".join(f"{e}: {n} of {args.reference_seeds}" for e, n in false_failures.items()),
            "tests": tests, "calibration": args.calibration, "calibrated": calibrated,
            "rate": calibrated / args.calibration, "low": interval.low, "high": interval.high,
            "first_threshold": 1e-3 / tests, "simulate_below": stats.SIMULATE_BELOW,
            "simulations": stats.SIMULATIONS + 1,
            "load": f"load averages (1, 5, 15 minutes) {load[0]} before the timing, {load[1]} after",
            "timing": runs.timing(seconds), "both": runs.total(seconds)}
