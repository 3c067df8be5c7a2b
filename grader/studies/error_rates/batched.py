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
   noncentral χ² on the pooled cells, as in the trees study).
4. The time of each check on the reference, and the machine's load averages before the
   runs, after them and after the timing.

Writes docs/statistics_batched.md.

    python -m grader.studies.error_rates batched --seeds 10 --reference-seeds 10 --jobs 2
"""
import re
import statistics
import time

import numpy as np

from grader.bench.timing import load_averages
from grader.checks.harness import FAMILY_ERROR_RATE
from grader.oracle.stats import LAW_TEST
from grader.oracle import laws, verifier_laws
from grader.studies import detection
from grader.studies.error_rates import runs

EXERCISES = ("batched_verify", "batched_generate")
PAGE = "statistics_batched"
CONFIRM_SEEDS = 2  # a mutant caught by deterministic properties only


def options(parser) -> None:
    runs.add_options(parser, seeds=10, reference_seeds=10, seeds_help="seeds per mutant caught by a statistical test")
    parser.add_argument("--timing-runs", type=int, default=3, help="runs of each check on the reference, timed")


def short(prop: str) -> str:
    """A property without its case: "skewed, k=3: law of the first token" -> "law of the
    first token", "law of token 2 (row 0, ...)" -> "law of token 2"; a twin row keeps its
    name ("twin row: accepted counts independent")."""
    name = prop.split(" (")[0]
    twin = re.match(r".* and its twin row: (.*)", name)
    return f"twin row: {twin.group(1)}" if twin else name.split(": ")[-1]


def statistical(findings) -> bool:
    return any(f.p_value is not None for f in findings)


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
        case = batch.cases[0]
        count = verifier_laws.accepted_count_law(case.p, case.q)
        joint = shared_uniform_counts(case.p, case.q)
        first = verifier_laws.first_token_law(case.p)
        tokens = shared_uniform_first_tokens(case.p, case.q)
        for law, alternative, name in ((count, joint, "accepted counts"), (first, tokens, "first tokens")):
            # each row of the mutant keeps its exact law: only the pair's law moves
            for value, probability in law.items():
                row = sum(v for (a, _), v in alternative.items() if a == value)
                assert abs(row - probability) < 1e-9, (case.label, name, value, row, probability)
            rows.append((case.label, name, detection.power_against(laws.product(law, law), alternative, n, threshold,
                                                                  LAW_TEST["min_expected"])))
    return rows


# --- the report ---------------------------------------------------------------------------

def run(args) -> dict:
    from grader.checks.batched_verify import LAW_DRAWS

    started = time.perf_counter()
    load = [load_averages()]
    # batched_generate first: its runs are the longest
    found = sorted(runs.mutants_of(EXERCISES), key=lambda m: (EXERCISES.index(m.exercise) == 0, m.name))
    first = runs.run_all(runs.jobs(found, 1, (), 0), args.jobs, findings=True)
    kind = {run.label: ("missed" if run.status == "passed" else
                        "statistical" if statistical(run.failed) else "deterministic") for run in first}
    seeds = {name: range(1, args.seeds if kind[name] != "deterministic" else min(CONFIRM_SEEDS, args.seeds))
             for name in kind}
    results = first + runs.run_all(runs.jobs(found, seeds, EXERCISES[::-1], args.reference_seeds), args.jobs,
                                   findings=True)
    load.append(load_averages())
    seconds, timing_load = runs.timed(EXERCISES, args.timing_runs)
    load.append(timing_load[1])
    tests = test_counts()
    power = twin_power(tests["batched_verify"])
    failures = []
    for e in EXERCISES:
        failed = runs.reference_failures(results, e)
        what = "; ".join(f"seed {r.seed}: {', '.join(short(f.property) for f in r.failed)}" for r in failed)
        failures.append(f"{e}: {len(failed)} of {args.reference_seeds}" + (f" ({what})" if what else ""))
    in_pool = {e: [r.seconds for r in results if r.label == "reference" and r.exercise == e] for e in EXERCISES}
    missed = [m.name for m in found if any(r.status == "passed" for r in results if r.label == m.name)]
    print(f"mutants not caught under every seed: {missed or 'none'}")
    return {"minutes": (time.perf_counter() - started) / 60, "seeds": args.seeds, "last_seed": args.seeds - 1,
            "confirm_last_seed": min(CONFIRM_SEEDS, args.seeds) - 1, "all_seeds_missed": 0.99 ** args.seeds,
            "reference_last_seed": args.reference_seeds - 1,
            "thresholds": ", ".join(f"{FAMILY_ERROR_RATE / m:.1e} for `{e}` ({m} tests)" for e, m in tests.items()),
            "mutants": mutant_rows(found, kind, results),
            "deterministic": ", ".join(f"`{m.name}`" for m in found if kind[m.name] == "deterministic"),
            "statistical": ", ".join(f"`{m.name}`" for m in found if kind[m.name] != "deterministic"),
            "twin_tests": len(power), "draws": LAW_DRAWS, "batched_verify_tests": tests["batched_verify"],
            "twins": [[case, test, f"{p:.4f}"] for case, test, p in power],
            "twin_best": max(p for _, _, p in power), "failures": "; ".join(failures),
            "timing_runs": args.timing_runs, "timing": runs.timing(seconds), "total": runs.total(seconds),
            "jobs": args.jobs,
            "pooled": ", ".join(f"{e} {statistics.median(s):.1f} s" for e, s in in_pool.items() if s),
            "load": load}


def test_counts() -> dict:
    """{check: how many statistical tests it makes on the reference} (Holm's m)."""
    from grader import exercises
    from grader.studies.in_process import run_check

    summaries = {e: run_check(exercises.get(e), "solutions", 0).summary for e in EXERCISES}
    return {e: int(re.search(r"(\d+) statistical tests", s).group(1)) for e, s in summaries.items()}


def mutant_rows(found, kind, results) -> list[list]:
    rows = []
    for m in found:
        mine = [r for r in results if r.label == m.name]
        caught, total = runs.detected(results, m.name)
        named = ", ".join(f"{name} ({count})" for name, count in runs.caught_by(mine, short, most=3))
        weakest = "—"
        if kind[m.name] != "deterministic":
            # per seed the smallest p-value of a statistical finding; the largest of those
            smallest = [min(f.p_value for f in r.failed if f.p_value is not None)
                        for r in mine if statistical(r.failed)]
            weakest = f"{max(smallest):.1e}" if smallest else "none"
        rows.append([f"`{m.name}`", m.exercise, m.description, kind[m.name], f"{caught}/{total}", weakest, named])
    return rows
