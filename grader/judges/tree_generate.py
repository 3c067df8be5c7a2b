"""The tree_generate check's expected values: the reference tree loop's forwards (for
kv_cache's cache discipline) and the exact laws of the output, of ``mean_accepted`` and of
the root's first two children."""
import torch

from grader.checks.harness import CheckRun
from grader.checks.tree_generate import LAW_HINT, MEAN_HINT, RULES, SIBLING_HINT
from grader.checks.verifier_rounds import LAW_TEST
from grader.judges import kv_cache
from grader.judges.loop_properties import law_tests
from grader.oracle import acceptance, stats, tree_laws
from solutions.autoregressive import as_list
from solutions.trees import tree_speculative_generate


def discipline(check: CheckRun, *args) -> None:
    """kv_cache's judge of the cache discipline, against the reference tree loop."""
    kv_cache.discipline(check, *args, reference=tree_speculative_generate, rules=RULES)


def laws(check: CheckRun, runs: list[tuple], first_trees: list[list[int]], target, drafter, case) -> None:
    """``runs``: the learner's ``(ids, mean_accepted)`` of each draw; ``first_trees``: what
    its first target forward was fed in each."""
    label = repr(case)
    samples = [(ids, acceptance.as_fraction(mean)) for ids, mean in runs]
    eos = as_list(case.eos)
    law = tree_laws.generate_law(target, drafter, case.prompt, case.branching, case.length, case.processor, eos)
    law_tests(check, [ids for ids, _ in samples], target, case.prompt, case.length, case.processor, eos, label,
              LAW_HINT, **LAW_TEST)
    check.test("joint law of the output and mean_accepted",
               stats.goodness_of_fit(samples, law, "(sequence, mean_accepted)", **LAW_TEST), LAW_HINT, case=label)
    check.test("law of mean_accepted",
               stats.goodness_of_fit([m for _, m in samples], tree_laws.marginal(law, lambda o: o[1]),
                                     "mean_accepted", **LAW_TEST), MEAN_HINT, case=label)
    if case.branching[0] >= 2:
        pairs = [tuple(ids[len(case.prompt): len(case.prompt) + 2]) for ids in first_trees]
        with torch.no_grad():
            q = case.processor(drafter(torch.tensor([case.prompt])).logits[0, -1].double()).tolist()
        sibling_law = {(a, b): q[a] * q[b] for a in range(len(q)) for b in range(len(q)) if q[a] * q[b] > 0}
        check.test("the root's first two children are i.i.d. draws of q",
                   stats.goodness_of_fit(pairs, sibling_law, "sibling pair", **LAW_TEST), SIBLING_HINT, case=label)
