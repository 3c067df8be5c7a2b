"""Power and false failures of lesson 8's checks: `batched_verify`, `batched_generate`.

1. Every lesson-8 mutant (tests/mutants/batched_*.py) under seed 0. A mutant whose failure
   names only deterministic properties (no p-value among its findings) fails whatever the
   seed: a second seed confirms it and the others are skipped. A mutant caught by a
   statistical test runs under every seed, since a test catches it only with some
   probability.
2. The reference under as many seeds, both checks: how often a check fails it (meant: at
   most 1e-3, which a few seeds cannot measure; they show that it is not much larger).
3. The power of `batched_verify`'s independence tests (a row and its twin) in closed form,
   against one uniform per draft position shared by the rows: the exact joint law of the
   twin pair's accepted counts and of their first tokens, and the probability that one
   test alone rejects the product law at Holm's first step (p ≤ 1e-3 / tests; Pearson's
   noncentral χ² on the pooled cells, as in scripts/power_trees.py).
4. The time of each check on the reference, and the machine's load averages before the
   runs, after them and after the timing.

Writes docs/statistics_batched.md.

    python scripts/power_batched.py --seeds 10 --reference-seeds 10 --jobs 2
"""
import argparse
import functools
import re
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.bench.timing import load_averages  # noqa: E402
from grader.checks.harness import FAMILY_ERROR_RATE  # noqa: E402
from grader.oracle import laws, verifier_laws  # noqa: E402
from grader.selftest import mutants  # noqa: E402
from scripts.power_trees import test_power  # noqa: E402  (one test's power, noncentral χ²)

EXERCISES = ("batched_verify", "batched_generate")
FOLDER = ROOT / "tests" / "mutants"
OUTPUT = ROOT / "docs" / "statistics_batched.md"
CONFIRM_SEEDS = 2  # a mutant caught by deterministic properties only


def short(prop: str) -> str:
    """A property without its case: "skewed, k=3: law of the first token" -> "law of the
    first token", "law of token 2 (row 0, ...)" -> "law of token 2"; a twin row keeps its
    name ("twin row: accepted counts independent")."""
    name = prop.split(" (")[0]
    twin = re.match(r".* and its twin row: (.*)", name)
    return f"twin row: {twin.group(1)}" if twin else name.split(": ")[-1]


def statistical(findings) -> bool:
    return any(f.p_value is not None for f in findings)


def run_jobs(jobs, processes: int) -> list:
    """Each job's ``mutants.graded`` result, the failed properties as findings."""
    results = []
    with ProcessPoolExecutor(processes) as pool:
        for result in pool.map(functools.partial(mutants.graded, findings=True), jobs):
            results.append(result)
            label, exercise, seed, status, findings, seconds = result
            print(label, exercise, seed, status, f"{seconds:.1f}s",
                  "; ".join(short(f.property) for f in findings[:2]), flush=True)
    return results


# --- 3. the twin rows' power in closed form ----------------------------------------------

def intervals(p_row: np.ndarray, q_row: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(midpoints, widths, A) over [0, 1] cut at every acceptance threshold min(1, p/q):
    ``A[j]`` is the probability that a draft d ~ q is accepted given the uniform u lies
    in interval j (d is accepted iff u · q(d) < p(d))."""
    drafted = q_row > 0
    ratio = np.minimum(1.0, p_row[drafted] / q_row[drafted])
    cuts = np.unique(np.concatenate([[0.0, 1.0], ratio]))
    mids, widths = (cuts[:-1] + cuts[1:]) / 2, np.diff(cuts)
    accepted = (mids[:, None] < ratio[None, :]).astype(float) @ q_row[drafted]
    return mids, widths, accepted


def shared_uniform_counts(p: np.ndarray, q: np.ndarray) -> dict:
    """The joint law of two rows' accepted counts when both verify drafts of one (p, q),
    drawn independently, against the same uniforms u_0 … u_{k-1}. Given u the rows are
    independent, and each position's factor depends on its own u_i only."""
    k = len(q)
    parts = [intervals(p[i], q[i]) for i in range(k)]

    def factor(a: int, i: int, accepted: np.ndarray) -> np.ndarray:
        return accepted if i < a else (1 - accepted if i == a else np.ones_like(accepted))

    law = {}
    for a in range(k + 1):
        for b in range(k + 1):
            probability = 1.0
            for i, (_, widths, accepted) in enumerate(parts):
                probability *= float(np.sum(widths * factor(a, i, accepted) * factor(b, i, accepted)))
            if probability > 0:
                law[a, b] = probability
    return law


def shared_uniform_first_tokens(p: np.ndarray, q: np.ndarray) -> dict:
    """The joint law of two rows' first tokens under one shared u_0 (each row's correction
    drawn with its own noise): a row emits its draft t when accepted, else a residual token."""
    mids, widths, accepted = intervals(p[0], q[0])
    residual = np.maximum(p[0] - q[0], 0.0)
    residual = residual / residual.sum() if residual.sum() > 0 else residual
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q[0] > 0, np.minimum(1.0, p[0] / q[0]), 0.0)
    # emitted[j, t]: P(first token t | u in interval j)
    emitted = q[0][None, :] * (mids[:, None] < ratio[None, :]) + (1 - accepted)[:, None] * residual[None, :]
    joint = np.einsum("j,ja,jb->ab", widths, emitted, emitted)
    return {(a, b): float(v) for (a, b), v in np.ndenumerate(joint) if v > 0}


def twin_power(tests: int) -> list[tuple[str, str, float]]:
    """[(case, test, power)] of each twin test of `batched_verify` against a uniform shared
    by the rows, at Holm's first step among ``tests`` statistical tests."""
    from grader.checks import batched_verify

    threshold = FAMILY_ERROR_RATE / tests
    n = batched_verify.LAW_DRAWS
    rows = []
    for batch in batched_verify.batches(batched_verify.CASES):
        case = batch[0]
        count = verifier_laws.accepted_count_law(case.p, case.q)
        joint = shared_uniform_counts(case.p, case.q)
        first = verifier_laws.first_token_law(case.p)
        tokens = shared_uniform_first_tokens(case.p, case.q)
        for law, alternative, name in ((count, joint, "accepted counts"), (first, tokens, "first tokens")):
            # each row of the mutant keeps its exact law: only the pair's law moves
            for value, probability in law.items():
                row = sum(v for (a, _), v in alternative.items() if a == value)
                assert abs(row - probability) < 1e-9, (case.name, name, value, row, probability)
            rows.append((case.name, name, test_power(laws.product(law, law), alternative, n, threshold)))
    return rows


# --- the report ---------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10, help="seeds per mutant caught by a statistical test")
    parser.add_argument("--reference-seeds", type=int, default=10, help="seeds for the reference")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--timing-runs", type=int, default=3, help="runs of each check on the reference, timed")
    args = parser.parse_args()
    started = time.perf_counter()
    load = {"before": load_averages()}

    found = [m for m in mutants.all_mutants(FOLDER) if m.exercise in EXERCISES]
    path = {m.name: str(FOLDER / f"{m.name}.py") for m in found}
    # batched_generate first: its runs are the longest
    found.sort(key=lambda m: (EXERCISES.index(m.exercise) == 0, m.name))
    first = run_jobs([(m.name, m.exercise, path[m.name], 0) for m in found], args.jobs)
    kind = {}
    for m, (_, _, _, status, findings, _) in zip(found, first):
        kind[m.name] = ("missed" if status == "passed" else
                        "statistical" if statistical(findings) else "deterministic")
    seeds = {m.name: args.seeds if kind[m.name] != "deterministic" else min(CONFIRM_SEEDS, args.seeds)
             for m in found}
    jobs = [(m.name, m.exercise, path[m.name], seed) for m in found for seed in range(1, seeds[m.name])]
    jobs += [("reference", e, "solutions", seed) for e in reversed(EXERCISES)
             for seed in range(args.reference_seeds)]
    results = first + run_jobs(jobs, args.jobs)
    load["after the runs"] = load_averages()

    # timed alone, one check at a time, as a learner runs them
    seconds = {e: [mutants.graded(("reference", e, "solutions", seed))[5] for seed in range(args.timing_runs)]
               for e in EXERCISES}
    load["after the timing"] = load_averages()
    tests = test_counts()
    power = twin_power(tests["batched_verify"])
    command = "python " + " ".join([Path(__file__).relative_to(ROOT).as_posix()] + sys.argv[1:])
    write_report(found, kind, results, seconds, power, tests, load, args, command,
                 time.perf_counter() - started)
    missed = [m.name for m in found
              if any(r[3] == "passed" for r in results if r[0] == m.name)]
    print(f"mutants not caught under every seed: {missed or 'none'}; table in {OUTPUT.relative_to(ROOT)}")


def test_counts() -> dict:
    """{check: how many statistical tests it makes on the reference} (Holm's m)."""
    from grader import exercises
    from grader.selftest.in_process import run_check

    summaries = {e: run_check(exercises.get(e), "solutions", 0).summary for e in EXERCISES}
    return {e: int(re.search(r"(\d+) statistical tests", s).group(1)) for e, s in summaries.items()}


def mutant_rows(found, kind, results) -> list[str]:
    rows = []
    for m in found:
        mine = [r for r in results if r[0] == m.name]
        detected = sum(r[3] == "failed" for r in mine)
        caught_by = Counter(name for r in mine for name in dict.fromkeys(short(f.property) for f in r[4]))
        named = ", ".join(f"{name} ({count})" for name, count in caught_by.most_common(3))
        weakest = "—"
        if kind[m.name] != "deterministic":
            # per seed the smallest p-value of a statistical finding; the largest of those
            smallest = [min(f.p_value for f in r[4] if f.p_value is not None) for r in mine if statistical(r[4])]
            weakest = f"{max(smallest):.1e}" if smallest else "none"
        rows.append(f"| `{m.name}` | {m.exercise} | {m.description} | {kind[m.name]} | "
                    f"{detected}/{len(mine)} | {weakest} | {named} |")
    return rows


def write_report(found, kind, results, seconds, power, tests, load, args, command, elapsed):
    from grader.checks.batched_verify import LAW_DRAWS as draws

    rows = mutant_rows(found, kind, results)
    failures = []
    for e in EXERCISES:
        failed = [r for r in results if r[0] == "reference" and r[1] == e and r[3] != "passed"]
        what = "; ".join(f"seed {r[2]}: {', '.join(short(f.property) for f in r[4])}" for r in failed)
        failures.append(f"{e}: {len(failed)} of {args.reference_seeds}" + (f" ({what})" if what else ""))
    in_pool = {e: [r[5] for r in results if r[0] == "reference" and r[1] == e] for e in EXERCISES}
    timing = ", ".join(f"{e} {statistics.median(s):.1f} s (max {max(s):.1f} s)" for e, s in seconds.items())
    pooled = ", ".join(f"{e} {statistics.median(s):.1f} s" for e, s in in_pool.items() if s)
    total = sum(statistics.median(s) for s in seconds.values())
    twin_rows = [f"| {case} | {test} | {p:.4f} |" for case, test, p in power]
    twin_best = max(p for _, _, p in power)
    thresholds = ", ".join(f"{FAMILY_ERROR_RATE / m:.1e} for `{e}` ({m} tests)" for e, m in tests.items())
    statistical_mutants = [m.name for m in found if kind[m.name] != "deterministic"]
    deterministic_mutants = [m.name for m in found if kind[m.name] == "deterministic"]
    OUTPUT.write_text(f"""# Lesson 8's checks: power, false failures, time

Generated by `{command}` in {elapsed / 60:.0f} minutes: a mutant caught by a statistical
test runs under seeds 0–{args.seeds - 1}, one caught by deterministic properties only under
seeds 0–{min(CONFIRM_SEEDS, args.seeds) - 1} (whatever the seed, such a property fails it:
the second seed only confirms); the reference under seeds 0–{args.reference_seeds - 1}.
These are modest numbers of seeds, chosen to keep the run under 20 minutes on two shared
cores: {args.seeds} seeds show a detection rate of 0.99 only as "no miss seen" (a mutant
missed with probability 0.01 passes all {args.seeds} with probability
{0.99 ** args.seeds:.2f}); the closed-form power below is the stronger evidence where it
exists.

## Mutants

"Seed 0" says what caught the mutant under seed 0: deterministic properties only, or a
statistical test (a finding with a p-value). "Detected" counts the seeds under which the
check failed it. "Weakest p" is, over its seeds, the largest of each seed's smallest
p-value among the failed statistical tests (an impossible outcome counts 0; 1.0e-05 is the
floor of a simulated p-value: no sample of the exact law reached the statistic); the check
rejects at Holm's first step when p ≤ 1e-3 / tests: {thresholds}. "Caught by" names the
properties that failed most often, with the number of seeds.

| mutant | check | bug | seed 0 | detected | weakest p | caught by |
| --- | --- | --- | --- | --- | --- | --- |
{chr(10).join(rows)}

Caught by deterministic properties: {', '.join(f'`{n}`' for n in deterministic_mutants)}.
Caught by statistical tests (run under every seed): {', '.join(f'`{n}`' for n in statistical_mutants)}.

## The independence tests (twin rows)

A batch shares forwards, never random numbers. A verifier that draws one uniform per draft
position and broadcasts it over the rows (`torch.rand(k)` instead of `torch.rand(B, k)`)
still gives every row exactly its own law, so no test of a single row can see it: only
the joint law of two rows can. `batched_verify` therefore stacks, in each batch of one
(k, V), a twin of the batch's first row (the same p and q, its drafts drawn apart) and
tests that the pair of their accepted counts, and the pair of their first tokens, follow
the product of their laws ({len(power)} tests, {draws:,}
rounds each). Identical rows are the strongest case: with a shared u the two rows accept
draft i together far more often than the product allows. `batched_generate` does the same
for the whole loop with two rows of one prompt (the pair of their second tokens, 400 runs).
Both compare the pair with the product of the rows' exact laws, so they also reject a row
whose own law is wrong (as `batched_generate_correction_from_p` shows), but they are the
only tests that see rows tied together.

Their power against the shared uniform, in closed form (the exact joint law of the pair
under a shared u, each test alone at Holm's first step among `batched_verify`'s
{tests['batched_verify']} tests, Pearson's noncentral χ² on the pooled cells):

| case (twin of the batch's first row) | test | power |
| --- | --- | --- |
{chr(10).join(twin_rows)}

The check fails the mutant with at least the largest of these, {twin_best:.4f}. The loop's
independence test has no closed form here (the shared uniform acts through every round of
two rows); its strength shows in the table above, in the detected count and the weakest
p-value of `batched_generate_shared_uniform`.

## False failures

The reference: {'; '.join(failures)}.

A few seeds cannot measure a rate of 1e-3; the tests' p-values are those of the G-test on
cells expected at least 20 times, whose calibration in the tail where Holm's thresholds
lie is measured in [statistics.md](statistics.md) and
[statistics_trees.md](statistics_trees.md), and every p-value below 1e-2 is checked by
simulation under the exact law (grader/oracle/stats.py), which keeps it valid there.

## Time and load

Each check on the reference, {args.timing_runs} runs one at a time in the main process (one
thread; 2 CPU cores, shared with other work): {timing}; both together {total:.1f} s. In the
worker pool ({args.jobs} processes side by side) the reference's median was {pooled}.

Load averages (1, 5 and 15 minutes):

- before the runs: `{load['before']}`
- after the runs: `{load['after the runs']}`
- after the timing: `{load['after the timing']}`
""")


if __name__ == "__main__":
    main()
