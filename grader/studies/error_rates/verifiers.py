"""Power of the lesson 1–2 checks: how often each mutant is caught, over many seeds.

    python -m grader.studies.error_rates verifiers --seeds 20 --workers 2

Every mutant in tests/mutants/ whose exercise is max_fn, speculative_decoding_verify,
speculative_sampling or greedy_match is checked with seeds 0..N−1 (in process, as
`grader check --seed S` would check it). Prints a Markdown table of detection rates; the
course asks for ≥ 0.99 (every one of 20 seeds).
"""
import statistics

from grader.studies.error_rates import runs

EXERCISES = ("max_fn", "speculative_decoding_verify", "speculative_sampling", "greedy_match")
PAGE = None  # the table is printed: docs/statistics.md shows it


def options(parser) -> None:
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=None, help="mutant names (default: all)")


def run(args) -> dict:
    found = [m for m in runs.mutants_of(EXERCISES) if args.only is None or m.name in args.only]
    results = runs.run_all(runs.jobs(found, args.seeds, EXERCISES, 0), args.workers)
    rows = []
    for m in found:
        caught, total = runs.detected(results, m.name)
        by = runs.caught_by([r for r in results if r.label == m.name], lambda prop: prop.split(": ", 1)[-1])
        seconds = statistics.mean(r.seconds for r in results if r.label == m.name)
        rows.append([f"`{m.name}`: {m.description}", m.exercise, f"{caught}/{total}", f"{caught / total:.2f}",
                     "; ".join(kind for kind, _ in by), f"{seconds:.1f}"])
    worst = min(runs.detected(results, m.name)[0] / args.seeds for m in found)
    return {"mutants": rows, "worst": worst, "count": len(found), "last_seed": args.seeds - 1}
