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

    python -m grader.studies.error_rates trees --seeds 20 --reference-seeds 20 --jobs 2
"""
import statistics

import numpy as np
from scipy import stats as scipy_stats

from grader.checks import multi_draft, tree_generate
from grader.checks.harness import FAMILY_ERROR_RATE
from grader.checks.loop_properties import models
from grader.oracle.stats import LAW_TEST
from grader.oracle import laws, stats, tree_laws
from grader.studies import detection, mutant_laws
from grader.studies.error_rates import runs
from solutions.autoregressive import as_list

EXERCISES = ("multi_draft", "tree_attention", "tree_generate")
PAGE = "statistics_trees"


def options(parser) -> None:
    runs.add_options(parser)
    parser.add_argument("--calibration", type=int, default=1_000_000,
                        help="simulated tests per statistical test, on draws from its exact law")


# --- 3. power in closed form -------------------------------------------------------------

def test_power(law: dict, alternative: dict, n: int, threshold: float) -> float:
    """P(one test of n draws from ``alternative`` against ``law`` has p ≤ threshold)."""
    return detection.power_against(law, alternative, n, threshold, LAW_TEST["min_expected"])


def multi_draft_power() -> dict:
    """{mutant: (power, [(case, test, power)])}: the check fails the mutant with at least the
    largest single-test power (its tests share draws, so the bound is not a product)."""
    tests = 3 * len(multi_draft.CASES)
    threshold = FAMILY_ERROR_RATE / tests
    found = {}
    for name, rule in mutant_laws.MULTI_DRAFT_BUGS.items():
        rows = []
        for case in multi_draft.CASES:
            exact, buggy = tree_laws.multi_draft_law(case.p, case.q, case.m), rule(case.p, case.q, case.m)
            rows += [(case.label, test, test_power(law, alternative, case.draws, threshold))
                     for (test, law), (_, alternative) in zip(mutant_laws.multi_draft_tested(exact),
                                                              mutant_laws.multi_draft_tested(buggy))]
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
        if case.shape["branching"][0] < 2:
            continue
        with torch.no_grad():
            q = case.processor(drafters[case.drafter](torch.tensor([case.prompt])).logits[0, -1].double()).numpy()
        iid = {(a, b): q[a] * q[b] for a in range(len(q)) for b in range(len(q)) if q[a] * q[b] > 0}
        without = {(a, b): q[a] * q[b] / (1 - q[a]) for a, b in iid if a != b}
        rows.append((repr(case.shape["branching"]), "sibling pair", test_power(iid, without, case.draws, threshold)))
    return max(power for _, _, power in rows), rows


def tree_tests() -> int:
    """The tree_generate check's statistical tests: per case the output, each token, the
    joint law with mean_accepted, mean_accepted, and the sibling pair where there are two."""
    return sum(3 + case.max_gen_len + (case.shape["branching"][0] >= 2) for case in tree_generate.LAW_CASES)


def typical_power() -> tuple[float, list, list]:
    """Typical acceptance in the tree_generate check, from its exact laws: the power, each
    test's, and each case's total variation between its output's law and the target's."""
    target, drafters = models()
    threshold = FAMILY_ERROR_RATE / tree_tests()
    rows, distances = [], []
    for case in tree_generate.LAW_CASES:
        eos = as_list(case.eos)
        exact = tree_laws.generate_law(target, drafters[case.drafter], case.prompt, case.shape["branching"],
                                       case.max_gen_len, case.processor, eos)
        typical = tree_laws.generate_law(target, drafters[case.drafter], case.prompt, case.shape["branching"],
                                         case.max_gen_len, case.processor, eos, rule=tree_laws.typical_law)
        target_law = laws.sequence_law(target, case.prompt, case.max_gen_len, case.processor, eos)
        output = tree_laws.marginal(typical, lambda o: o[0])
        distances.append(0.5 * sum(abs(output.get(o, 0.0) - target_law.get(o, 0.0))
                                   for o in set(output) | set(target_law)))
        pairs = [("output", target_law, output), ("output and mean_accepted", exact, typical),
                 ("mean_accepted", tree_laws.marginal(exact, lambda o: o[1]),
                  tree_laws.marginal(typical, lambda o: o[1]))]
        pairs += [(f"token {i + 1}", laws.marginal(target_law, i), laws.marginal(output, i))
                  for i in range(case.max_gen_len)]
        rows += [(repr(case.shape["branching"]), test, test_power(law, alternative, case.draws, threshold))
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
        tests["multi_draft"] += [(case.label, test, law, case.draws)
                                 for test, law in mutant_laws.multi_draft_tested(exact)]
    target, drafters = models()
    for case in tree_generate.LAW_CASES:
        eos, drafter = as_list(case.eos), drafters[case.drafter]
        law = tree_laws.generate_law(target, drafter, case.prompt, case.shape["branching"], case.max_gen_len,
                                     case.processor, eos)
        target_law = laws.sequence_law(target, case.prompt, case.max_gen_len, case.processor, eos)
        found = [("output", target_law), ("output and mean_accepted", law),
                 ("mean_accepted", tree_laws.marginal(law, lambda o: o[1]))]
        found += [(f"token {i + 1}", laws.marginal(target_law, i)) for i in range(case.max_gen_len)]
        if case.shape["branching"][0] >= 2:
            with torch.no_grad():
                q = case.processor(drafter(torch.tensor([case.prompt])).logits[0, -1].double()).tolist()
            found.append(("sibling pair", {(a, b): q[a] * q[b] for a in range(len(q))
                                           for b in range(len(q)) if q[a] * q[b] > 0}))
        tests["tree_generate"] += [(repr(case.shape["branching"]), test, test_law, case.draws) for test, test_law in found]
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


def run(args) -> dict:
    found = runs.mutants_of(EXERCISES)
    results = runs.run_all(runs.jobs(found, args.seeds, EXERCISES, args.reference_seeds), args.jobs)
    calibrated = calibration(args.calibration)
    closed_form = multi_draft_power()
    *closed_form["tree_typical_acceptance"], distances = typical_power()
    closed_form["tree_siblings_without_replacement"] = siblings_power()
    seconds, load = runs.timed(EXERCISES)  # the load beside the timing: on a shared machine it says what competed
    rows = []
    for m in found:
        caught, total = runs.detected(results, m.name)
        # a property without its case: "flat, m=3: law of the index" -> "law of the index"
        by = runs.caught_by([r for r in results if r.label == m.name], lambda p: p.split(" (")[0].split(": ")[-1])
        power = f"{closed_form[m.name][0]:.4f}" if m.name in closed_form else "deterministic"
        rows.append([f"`{m.name}`", m.exercise, m.description, f"{caught}/{total}", power,
                     ", ".join(name for name, _ in by)])
    strongest = [[f"`{name}`", "; ".join(f"{case}, {test}: {power:.3f}"
                                         for case, test, power in sorted(tests, key=lambda row: -row[2])[:3])]
                 for name, (_, tests) in closed_form.items()]
    exceedances = args.calibration * 1e-3 / 31  # expected per estimate at a threshold of 1e-3 / 31
    return {"seeds": args.seeds, "last_seed": args.seeds - 1,
            "shared_uniform_draws": max(c.draws for c in multi_draft.CASES),
            "distances": ", ".join(f"{d:.2f}" for d in distances), "mutants": rows, "strongest": strongest,
            "reference_last_seed": args.reference_seeds - 1,
            "failures": "; ".join(f"{e}: {len(runs.reference_failures(results, e))} of {args.reference_seeds}"
                                  for e in EXERCISES),
            "calibration": args.calibration, "exceedances": exceedances, "noise": 2 / exceedances ** 0.5,
            "bound_multi_draft": calibrated["multi_draft"][0], "bound_tree_generate": calibrated["tree_generate"][0],
            "calibration_rows": calibration_rows(calibrated), "timing": runs.timing(seconds),
            "total": runs.total(seconds), "load": load}


def calibration_rows(calibrated: dict) -> list[list]:
    rows = []
    for check, (_, tests) in calibrated.items():
        informative = [row for row in tests if row[2] > 0]
        case, test, _, largest = max(informative, key=lambda row: row[3])
        rows.append([check, len(tests), f"{statistics.mean(r[3] for r in informative):.2f}",
                     f"{largest:.2f} ({case}, {test})", len(tests) - len(informative)])
    return rows
