"""The power statement of every check: how small a change of a law its tests see.

1. Each check on the reference (seed 0): for each statistical test, the smallest change of
   its law, in total variation, that it detects in any direction with probability 0.99 at
   Holm's strictest threshold (``grader/oracle/chi2_power.py``; shown by ``grader check -v``).
2. The known bugs whose law is exact (the verifier's and the loop's, an acceptance rate that
   counts gamma per round, the multi-draft mutants, typical acceptance, siblings drawn
   without replacement): the bug's own
   distance from the law on the test that sees it best, the smallest distance that test
   detects along the bug's direction, and the ratio; above 1, that test alone catches the
   bug with probability at least 0.99.

Writes docs/statistics_power.md.

    python -m grader.studies.error_rates statement
"""
import statistics
import time

import torch

from grader import exercises
from grader.bench.timing import LoadMeter
from grader.checks import multi_draft, speculative_generate, speculative_sampling, static_cache, tree_generate
from grader.checks.loop_properties import models
from grader.oracle.stats import LAW_TEST
from grader.oracle import acceptance, laws, stats, tree_laws, verifier_laws
from grader.studies import detection, mutant_laws
from grader.studies.in_process import run_check
from solutions.autoregressive import as_list

PAGE = "statistics_power"
STATISTICAL = ("speculative_decoding_verify", "speculative_sampling", "speculative_generate", "kv_cache",
               "ngram", "static_cache", "batched_verify", "batched_generate", "multi_draft", "tree_generate")


def any_direction() -> tuple[list[list], dict]:
    """Table rows of part 1, and {exercise: Holm's strictest threshold}."""
    rows, thresholds = [], {}
    for exercise_id in STATISTICAL:
        verdict = run_check(exercises.get(exercise_id), "solutions", 0)
        assert verdict.passed, f"the reference fails {exercise_id}: {verdict.summary}"
        deltas = sorted(delta for _, delta in verdict.detectable)
        weakest = max(verdict.detectable, key=lambda d: d[1])[0]
        thresholds[exercise_id] = verdict.threshold
        rows.append([exercise_id, len(deltas), f"{verdict.threshold:.1e}", f"{deltas[0]:.3f}",
                     f"{statistics.median(deltas):.3f}", f"{deltas[-1]:.3f} ({weakest})"])
    return rows, thresholds


def best_test(pairs, threshold: float, min_expected: float) -> tuple:
    """(ratio, test, bug's distance, detectable distance, power against the bug) of the test
    that sees the bug best; ``pairs``: (test, its draws, its exact law, the bug's law)."""
    found = []
    for test, draws, law, alternative in pairs:
        delta = detection.detectable_tv_along(law, alternative, draws, threshold, min_expected)
        tv = detection.cell_distance(law, alternative, draws, min_expected)
        found.append((tv / delta if delta > 0 else float("inf"), test, tv, delta,
                      detection.power_against(law, alternative, draws, threshold, min_expected)))
    return max(found, key=lambda row: row[0])


def multi_draft_bugs(threshold: float) -> list[tuple]:
    rows = []
    for name, rule in mutant_laws.MULTI_DRAFT_BUGS.items():
        pairs = []
        for case in multi_draft.CASES:
            exact, bug = tree_laws.multi_draft_law(case.p, case.q, case.m), rule(case.p, case.q, case.m)
            tested = zip(mutant_laws.multi_draft_tested(exact), mutant_laws.multi_draft_tested(bug))
            pairs += [(f"{case.label}: {test}", case.draws, law, other) for (test, law), (_, other) in tested]
        rows.append((name, "multi_draft", *best_test(pairs, threshold, LAW_TEST["min_expected"])))
    return rows


def tree_bugs(threshold: float) -> list[tuple]:
    target, drafters = models()
    typical, siblings = [], []
    for case in tree_generate.LAW_CASES:
        eos, drafter = as_list(case.eos), drafters[case.drafter]
        exact = tree_laws.generate_law(target, drafter, case.prompt, case.shape["branching"], case.max_gen_len,
                                       case.processor, eos)
        bug = tree_laws.generate_law(target, drafter, case.prompt, case.shape["branching"], case.max_gen_len,
                                     case.processor, eos, rule=tree_laws.typical_law)
        typical.append((f"{case.shape['branching']}: output and mean_accepted", case.draws, exact, bug))
        if case.shape["branching"][0] >= 2:
            with torch.no_grad():
                q = case.processor(drafter(torch.tensor([case.prompt])).logits[0, -1].double()).tolist()
            iid = {(a, b): q[a] * q[b] for a in range(len(q)) for b in range(len(q)) if q[a] * q[b] > 0}
            without = {(a, b): q[a] * q[b] / (1 - q[a]) for a, b in iid if a != b}
            siblings.append((f"{case.shape['branching']}: sibling pair", case.draws, iid, without))
    minimum = LAW_TEST["min_expected"]
    return [("tree_typical_acceptance", "tree_generate", *best_test(typical, threshold, minimum)),
            ("tree_siblings_without_replacement", "tree_generate", *best_test(siblings, threshold, minimum))]


def loop_bugs(threshold: float) -> list[tuple]:
    """The speculative_generate check's law tests (the joint law of the output and each
    token's) against the exact output law of each known bug of the loop."""
    target, drafters = models()
    rows = []
    for name, rule in mutant_laws.LOOP_BUGS.items():
        pairs = []
        for case in speculative_generate.LAW_CASES:
            arguments = (target, drafters[case.drafter], case.prompt, case.shape["gamma"], case.max_gen_len,
                         case.processor, case.shape["first_target"], as_list(case.eos))
            law, bug = acceptance.output_law(*arguments), acceptance.output_law(*arguments, rule)
            pairs.append((f"law of the first {case.max_gen_len} tokens ({case.label})", case.draws, law, bug))
            pairs += [(f"law of token {i + 1} ({case.label})", case.draws, laws.marginal(law, i), laws.marginal(bug, i))
                      for i in range(case.max_gen_len)]
        rows.append((name, "speculative_generate", *best_test(pairs, threshold, stats.MIN_EXPECTED)))
    return rows


def verifier_bugs(threshold: float) -> list[tuple]:
    """The speculative_sampling check's law tests that follow from the joint law of a round
    (the joint law, the accepted count's, the first token's) against each known bug's."""
    rows = []
    for bug in mutant_laws.VERIFIER_BUGS:
        pairs = []
        for case in speculative_sampling.CASES:
            law = verifier_laws.emission_law(case.p, case.q)
            other = mutant_laws.buggy_emission_law(case.p, case.q, bug)
            for test, part in (("joint law of the emitted tokens", tuple), ("law of the accepted count",
                               lambda o: len(o) - 1), ("law of the first token", lambda o: o[0])):
                pairs.append((f"{case.label}: {test}", case.draws, tree_laws.marginal(law, part),
                              tree_laws.marginal(other, part)))
        rows.append((bug, "speculative_sampling", *best_test(pairs, threshold, LAW_TEST["min_expected"])))
    return rows


def rate_bugs(thresholds: dict) -> list[tuple]:
    """The acceptance rate divided by gamma in every round (mutants ``*_rate_counts_gamma``)."""
    rows = []
    for exercise_id, mutant, case in (("speculative_generate", "spec_rate_counts_gamma",
                                       speculative_generate.ACCEPTANCE_CASE),
                                      ("static_cache", "static_rate_counts_gamma", static_cache.ACCEPTANCE_CASE)):
        target, drafters = models()
        arguments = (target, drafters[case.drafter], case.prompt, case.shape["gamma"], case.max_gen_len,
                     case.processor, case.shape["first_target"])
        law, bug = acceptance.rate_law(*arguments), acceptance.rate_law(*arguments, acceptance.Rule(counts_gamma=True))
        rows.append((mutant, exercise_id, *best_test([(f"acceptance rate ({case.label})", case.draws, law, bug)],
                                                     thresholds[exercise_id], stats.MIN_EXPECTED)))
    return rows


def options(parser) -> None:
    """No options: every check and known bug, at the checks' own sizes."""


def run(args) -> dict:
    torch.set_num_threads(1)
    start = time.perf_counter()
    with LoadMeter() as load:
        checks, thresholds = any_direction()
        bugs = (verifier_bugs(thresholds["speculative_sampling"]) + loop_bugs(thresholds["speculative_generate"])
                + rate_bugs(thresholds)
                + multi_draft_bugs(thresholds["multi_draft"]) + tree_bugs(thresholds["tree_generate"]))
    return {"elapsed": time.perf_counter() - start, "load": load.describe(), "checks": checks,
            "bugs": [[f"`{name}`", check, test, f"{tv:.4f}", f"{delta:.4f}", f"{ratio:.1f}", f"{1 - chance:.1e}"]
                     for name, check, ratio, test, tv, delta, chance in bugs]}
