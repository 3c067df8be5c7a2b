"""Power, false failures and time of the `ngram` check.

Every `ngram` mutant (tests/mutants/ngram_*.py) runs under many seeds: its detection rate
must be 1 (20/20 by default). The reference runs under as many seeds: Holm's correction
bounds its failure rate by 1e-3. The median time of the check on the reference is
printed beside the 30 s budget. The table goes to docs/statistics_ngram.md.

    python -m grader.studies.error_rates ngram                        # 20 seeds each, 2 processes
    python -m grader.studies.error_rates ngram --seeds 40 --reference-seeds 40 --jobs 2
"""
import statistics

from grader.bench.timing import load_averages
from grader.studies.error_rates import runs

EXERCISE = "ngram"
BUDGET_S = 30
PAGE = "statistics_ngram"


def options(parser) -> None:
    runs.add_options(parser)


def run(args) -> dict:
    found = runs.mutants_of((EXERCISE,))
    load = [load_averages()]
    results = runs.run_all(runs.jobs(found, args.seeds, (EXERCISE,), args.reference_seeds), args.jobs)
    load.append(load_averages())
    rows = []
    for m in found:
        caught, total = runs.detected(results, m.name)
        by = runs.caught_by([r for r in results if r.label == m.name])
        rows.append([f"`{m.name}`", m.description, f"{caught}/{total}", ", ".join(n for n, _ in by)])
    seconds = [r.seconds for r in results if r.label == "reference"]
    false_failures = len(runs.reference_failures(results, EXERCISE))
    print(f"the check on the reference: median {statistics.median(seconds) if seconds else float('nan'):.1f} s "
          f"(budget {BUDGET_S} s, {args.jobs} checks at a time)")
    print(f"false failures of the reference: {false_failures} of {len(seconds)}")
    return {"seeds": args.seeds, "last_seed": args.seeds - 1, "reference_seeds": args.reference_seeds,
            "mutants": rows, "false_failures": false_failures, "jobs": args.jobs, "budget": BUDGET_S,
            "timing": (f"median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s" if seconds
                       else "not measured"), "load": load}
