"""Power and false failures of lesson 9's checks: `multi_draft`, `tree_attention`, `tree_generate`.

1. Every lesson-9 mutant (tests/mutants/) under many seeds: how often its check fails it.
2. The reference under as many seeds: how often a check fails it (meant: at most 1e-3).
3. The power of the statistical tests in closed form, for the mutants whose law is exact:
   the multi-draft mutants (their law of (index, token), enumerated over the draft tuples)
   and typical acceptance (its law of the output, enumerated through the walk). For each
   test, the probability that it alone rejects at the first step of Holm's procedure
   (p ≤ 1e-3 / tests): an outcome of probability 0 observed at least once, or Pearson's
   noncentral χ² on the pooled cells.
4. Each statistical test alone, simulated on draws from its own exact law: how often it
   rejects at Holm's first step; their sum bounds a correct implementation's
   false-failure rate, which a few dozen seeds cannot measure.
5. The time of each check on the reference.

Writes docs/statistics_trees.md.

    python scripts/power_trees.py --seeds 20 --reference-seeds 20 --jobs 2
"""
import argparse
import statistics
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from scipy import stats as scipy_stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.bench.timing import load_averages  # noqa: E402
from grader.checks import multi_draft, tree_generate  # noqa: E402
from grader.checks.harness import FAMILY_ERROR_RATE  # noqa: E402
from grader.checks.loop_properties import models  # noqa: E402
from grader.checks.verifier_rounds import LAW_TEST  # noqa: E402
from grader.oracle import laws, power, stats, tree_laws  # noqa: E402
from grader.selftest import mutants  # noqa: E402
from solutions.autoregressive import as_list  # noqa: E402

EXERCISES = ("multi_draft", "tree_attention", "tree_generate")
OUTPUT = ROOT / "docs" / "statistics_trees.md"


# --- 3. power in closed form -------------------------------------------------------------

def test_power(law: dict, alternative: dict, n: int, threshold: float) -> float:
    """P(one test of n draws from ``alternative`` against ``law`` has p ≤ threshold)."""
    return power.power_against(law, alternative, n, threshold, LAW_TEST["min_expected"])


def multi_draft_power() -> dict:
    """{mutant: (power, [(case, test, power)])}: the check fails the mutant with at least the
    largest single-test power (its tests share draws, so the bound is not a product)."""
    tests = 3 * len(multi_draft.CASES)
    threshold = FAMILY_ERROR_RATE / tests
    found = {}
    for name, rule in tree_laws.MULTI_DRAFT_BUGS.items():
        rows = []
        for case in multi_draft.CASES:
            exact = tree_laws.multi_draft_law(case.p, case.q, case.m)
            rows += [(case.name, test, test_power(law, alternative, case.draws, threshold))
                     for (test, law), (_, alternative) in zip(tree_laws.multi_draft_tested(exact),
                                                              tree_laws.multi_draft_tested(rule(case.p, case.q, case.m)))]
        found[name] = (max(power for _, _, power in rows), rows)
    return found


def siblings_power() -> tuple[float, list]:
    """Siblings drawn without replacement: the law of the root's first two children,
    ``q(a) q(b) / (1 − q(a))`` for ``a ≠ b``, against the i.i.d. ``q(a) q(b)``."""
    import torch

    _, drafters = models()
    threshold = FAMILY_ERROR_RATE / tree_tests()
    rows = []
    for case in tree_generate.LAW_CASES:
        if case.branching[0] < 2:
            continue
        with torch.no_grad():
            q = case.processor(drafters[case.drafter](torch.tensor([case.prompt])).logits[0, -1].double()).numpy()
        iid = {(a, b): q[a] * q[b] for a in range(len(q)) for b in range(len(q)) if q[a] * q[b] > 0}
        without = {(a, b): q[a] * q[b] / (1 - q[a]) for a, b in iid if a != b}
        rows.append((repr(case.branching), "sibling pair", test_power(iid, without, case.draws, threshold)))
    return max(power for _, _, power in rows), rows


def tree_tests() -> int:
    """The tree_generate check's statistical tests: per case the output, each token, the
    joint law with mean_accepted, mean_accepted, and the sibling pair where there are two."""
    return sum(3 + case.length + (case.branching[0] >= 2) for case in tree_generate.LAW_CASES)


def typical_power() -> tuple[float, list, list]:
    """Typical acceptance in the tree_generate check, from its exact laws: the power, each
    test's, and each case's total variation between its output's law and the target's."""
    target, drafters = models()
    threshold = FAMILY_ERROR_RATE / tree_tests()
    rows, distances = [], []
    for case in tree_generate.LAW_CASES:
        eos = as_list(case.eos)
        exact = tree_laws.generate_law(target, drafters[case.drafter], case.prompt, case.branching,
                                       case.length, case.processor, eos)
        typical = tree_laws.generate_law(target, drafters[case.drafter], case.prompt, case.branching,
                                         case.length, case.processor, eos, rule=tree_laws.typical_law)
        target_law = laws.sequence_law(target, case.prompt, case.length, case.processor, eos)
        output = tree_laws.marginal(typical, lambda o: o[0])
        distances.append(0.5 * sum(abs(output.get(o, 0.0) - target_law.get(o, 0.0))
                                   for o in set(output) | set(target_law)))
        pairs = [("output", target_law, output), ("output and mean_accepted", exact, typical),
                 ("mean_accepted", tree_laws.marginal(exact, lambda o: o[1]),
                  tree_laws.marginal(typical, lambda o: o[1]))]
        pairs += [(f"token {i + 1}", laws.marginal(target_law, i), laws.marginal(output, i))
                  for i in range(case.length)]
        rows += [(repr(case.branching), test, test_power(law, alternative, case.draws, threshold))
                 for test, law, alternative in pairs]
    return max(power for _, _, power in rows), rows, distances


# --- 4. the tests alone, where Holm's thresholds lie --------------------------------------

def tail_ratio(rng, law: dict, n: int, threshold: float, samples: int) -> tuple[int, float]:
    """(degrees of freedom, P(p ≤ threshold) / threshold) of one G-test of ``n`` draws from
    ``law`` itself, as ``stats.goodness_of_fit`` makes it (cells pooled to 20 expected),
    over ``samples`` simulated tests: 1 is exact, above 1 overstates significance."""
    cells = stats.pooled_cells(law, n, LAW_TEST["min_expected"])
    probs = np.array([sum(law[o] for o in cell) for cell in cells])
    if len(cells) < 2:
        return 0, 0.0  # one cell: p = 1, never a rejection
    counts = rng.multinomial(n, probs / probs.sum(), size=samples)
    expected = n * probs / probs.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 2 * np.sum(np.where(counts > 0, counts * np.log(counts / expected), 0.0), axis=1)
    return len(cells) - 1, float(np.mean(scipy_stats.chi2.sf(g, len(cells) - 1) <= threshold)) / threshold


def check_laws() -> dict:
    """{check: [(case, test, law, draws)]}: every statistical test of the two checks, with
    the exact law its outcomes follow on the reference."""
    import torch

    tests = {"multi_draft": [], "tree_generate": []}
    for case in multi_draft.CASES:
        exact = tree_laws.multi_draft_law(case.p, case.q, case.m)
        tests["multi_draft"] += [(case.name, test, law, case.draws)
                                 for test, law in tree_laws.multi_draft_tested(exact)]
    target, drafters = models()
    for case in tree_generate.LAW_CASES:
        eos, drafter = as_list(case.eos), drafters[case.drafter]
        law = tree_laws.generate_law(target, drafter, case.prompt, case.branching, case.length,
                                     case.processor, eos)
        target_law = laws.sequence_law(target, case.prompt, case.length, case.processor, eos)
        found = [("output", target_law), ("output and mean_accepted", law),
                 ("mean_accepted", tree_laws.marginal(law, lambda o: o[1]))]
        found += [(f"token {i + 1}", laws.marginal(target_law, i)) for i in range(case.length)]
        if case.branching[0] >= 2:
            with torch.no_grad():
                q = case.processor(drafter(torch.tensor([case.prompt])).logits[0, -1].double()).tolist()
            found.append(("sibling pair", {(a, b): q[a] * q[b] for a in range(len(q))
                                           for b in range(len(q)) if q[a] * q[b] > 0}))
        tests["tree_generate"] += [(repr(case.branching), test, test_law, case.draws) for test, test_law in found]
    return tests


def calibration(samples: int) -> dict:
    """{check: (Bonferroni bound on its false-failure rate, [(case, test, dof, ratio)])}.

    A correct implementation fails a check when its smallest p-value is at most
    1e-3 / tests (Holm's first step), which has probability at most the sum of each test's
    P(p ≤ 1e-3 / tests), whatever the tests' dependence."""
    rng = np.random.default_rng(0)
    found = {}
    for check, tests in check_laws().items():
        threshold = FAMILY_ERROR_RATE / len(tests)
        rows = [(case, test, *tail_ratio(rng, law, n, threshold, samples)) for case, test, law, n in tests]
        found[check] = (sum(ratio for *_, ratio in rows) * threshold, rows)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="seeds per mutant")
    parser.add_argument("--reference-seeds", type=int, default=20, help="seeds for the reference")
    parser.add_argument("--calibration", type=int, default=1_000_000,
                        help="simulated tests per statistical test, on draws from its exact law")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    args = parser.parse_args()

    found = [m for m in mutants.all_mutants(ROOT / "tests" / "mutants") if m.exercise in EXERCISES]
    jobs = [(m.name, m.exercise, str(ROOT / "tests" / "mutants" / f"{m.name}.py"), seed)
            for m in found for seed in range(args.seeds)]
    jobs += [("reference", e, "solutions", seed) for seed in range(args.reference_seeds) for e in EXERCISES]
    results = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for result in pool.map(mutants.graded, jobs):
            results.append(result)
            print(*result[:4], f"{result[5]:.1f}s", flush=True)
    calibrated = calibration(args.calibration)
    closed_form = multi_draft_power()
    *closed_form["tree_typical_acceptance"], distances = typical_power()
    closed_form["tree_siblings_without_replacement"] = siblings_power()
    load = [load_averages()]  # beside the timing: on a shared machine it says what competed
    seconds = {e: [mutants.graded(("reference", e, "solutions", seed))[5] for seed in range(3)] for e in EXERCISES}
    load.append(load_averages())
    command = "python " + " ".join([Path(__file__).relative_to(ROOT).as_posix()] + sys.argv[1:])
    write_report(found, results, calibrated, closed_form, distances, seconds, load, args, command)
    print(f"table in {OUTPUT.relative_to(ROOT)}")


def calibration_rows(calibrated: dict) -> list[str]:
    rows = []
    for check, (_, tests) in calibrated.items():
        informative = [row for row in tests if row[2] > 0]
        case, test, _, largest = max(informative, key=lambda row: row[3])
        rows.append(f"| {check} | {len(tests)} | {statistics.mean(r[3] for r in informative):.2f} | "
                    f"{largest:.2f} ({case}, {test}) | {len(tests) - len(informative)} |")
    return rows


def write_report(found, results, calibrated, closed_form, distances, seconds, load, args, command):
    rows = []
    for m in found:
        mine = [r for r in results if r[0] == m.name]
        detected = sum(r[3] == "failed" for r in mine)
        # a property without its case: "flat, m=3: law of the index" -> "law of the index"
        caught_by = Counter(p.split(" (")[0].split(": ")[-1] for r in mine for p in r[4]).most_common(2)
        power = f"{closed_form[m.name][0]:.4f}" if m.name in closed_form else "deterministic"
        rows.append(f"| `{m.name}` | {m.exercise} | {m.description} | {detected}/{len(mine)} | "
                    f"{power} | {', '.join(name for name, _ in caught_by)} |")
    failures = "; ".join(f"{e}: {sum(r[3] != 'passed' for r in results if r[0] == 'reference' and r[1] == e)} "
                         f"of {args.reference_seeds}" for e in EXERCISES)
    strongest = []
    for name, (_, tests) in closed_form.items():
        best = sorted(tests, key=lambda row: -row[2])[:3]
        shown = "; ".join(f"{case}, {test}: {power:.3f}" for case, test, power in best)
        strongest.append(f"| `{name}` | {shown} |")
    timing = ", ".join(f"{e} {statistics.median(s):.1f} s (max {max(s):.1f} s)" for e, s in seconds.items())
    total = sum(statistics.median(s) for s in seconds.values())
    OUTPUT.write_text(f"""# Lesson 9's checks: power, false failures, time

Generated by `{command}` ({args.seeds} seeds per mutant, seeds 0–{args.seeds - 1}).

## How the sizes were chosen

Every mutant must be caught with probability at least 0.99 and the reference failed with
probability at most 1e-3 per check; lesson 9's three checks together must stay well under
30 s on the reference (one thread).

- **`multi_draft`** draws 1,000 calls per case (nine cases, three G-tests each, cells
  expected fewer than 20 times pooled, as in lesson 2). Its mutants put mass on outcomes
  the exact law forbids (an index with a token its residual gives 0, or a final token
  outside `r_m`'s support), so the support test catches them within a few hundred calls;
  1,000 keeps the G-tests' power for biases that stay inside the support, at 2 s.
  A tenth case, "middling acceptances, m=2", draws {max(c.draws for c in multi_draft.CASES):,}
  calls: one uniform shared by all drafts (`multi_draft_shared_uniform`) stays inside the
  support and moves the law far less in the nine cases above, so its p and q were chosen
  to maximise that bug's noncentrality; its distance from the law and the distance the check sees along it are
  in [statistics_power.md](statistics_power.md).
- **`tree_attention`** is deterministic: exact masks and depths, then logits in float64.
- **`tree_generate`** draws 200 runs per sampled case (four cases; a run of the tiny models
  takes milliseconds, and the runs are most of the check's time). Typical acceptance moves
  the output's law by a total variation of {', '.join(f'{d:.2f}' for d in distances)} on
  these cases (exact), which 200 runs detect with the power in the table below; siblings
  drawn without replacement never repeat a token, while i.i.d. siblings repeat with
  probability Σ q², and the law of the root's sibling pair rejects them under every seed.
  The cache and counting bugs are caught by deterministic properties (greedy output,
  forward-by-forward cache discipline, the range of `mean_accepted`).

All tests are G-tests with cells expected at least 20 times (`grader/oracle/stats.py`), whose
p-values hold in the tail where Holm's thresholds lie ([statistics.md](statistics.md)); every
p-value below 1e-2 is also checked by simulation under the exact law.

## Mutants

"Detected" counts the seeds under which the check failed the mutant; "power" is the
closed-form probability (point 3 of the script's docstring) that the check fails it,
or "deterministic" where a deterministic property catches it whatever the seed.

| mutant | check | bug | detected | power | caught by |
| --- | --- | --- | --- | --- | --- |
{chr(10).join(rows)}

The strongest single tests of each statistically caught mutant (power of that test alone):

| mutant | test: power |
| --- | --- |
{chr(10).join(strongest)}

## False failures

The reference under seeds 0–{args.reference_seeds - 1}: {failures}.

A few dozen seeds cannot measure a rate of 1e-3. So each statistical test is simulated
{args.calibration:,} times on draws from its own exact law, exactly as the check pools and
tests them, and the probability that it rejects at Holm's first step (p ≤ 1e-3 / tests)
is estimated: the ratio to that threshold is 1 for an exact test, above 1 where the G-test
overstates significance (about {args.calibration * 1e-3 / 31:.0f} expected exceedances per
estimate, so a ratio within 1 ± {2 / (args.calibration * 1e-3 / 31) ** 0.5:.2f} is noise). A correct implementation fails a check only if
some test rejects there, so their sum bounds its false-failure rate, whatever the tests'
dependence: multi_draft {calibrated['multi_draft'][0]:.2e}, tree_generate
{calibrated['tree_generate'][0]:.2e}.

| check | tests | mean ratio | largest ratio (test) | tests of one cell (never reject) |
| --- | --- | --- | --- | --- |
{chr(10).join(calibration_rows(calibrated))}

## Time

Median of three runs of each check on the reference, one at a time, in this process (one
thread; 2 CPU cores, shared with whatever else ran): {timing}; the three together
{total:.1f} s. Load averages (1, 5 and 15 minutes): {load[0]} before the timing, {load[1]}
after.
""")


if __name__ == "__main__":
    main()
