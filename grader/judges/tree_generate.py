"""The tree_generate check's expected values: the reference tree loop's forwards (the trees
its target scores under greedy decoding, and kv_cache's cache discipline) and the exact laws
of the output, of ``mean_accepted`` and of the root's first two children."""
from collections import Counter

import torch

from grader.checks.harness import CheckRun
from grader.oracle.stats import LAW_TEST
from grader.judges import kv_cache
from grader.judged.loops import LoopRun, Samples
from grader.judges.loop_properties import law_tests
from grader.observers.trace import traced
from grader.oracle import acceptance, stats, tree_laws
from solutions.autoregressive import as_list
from solutions.trees import tree_parents, tree_speculative_generate


GREEDY_TREE_HINT = ("under greedy decoding the tree is fixed by the text: a node's children are its b "
                    "likeliest distinct tokens under the drafter, which reads each node at its depth's "
                    "position and sees the text and the node's ancestors only. The output stays right "
                    "whatever the tree, so only the trees (and what they accept) show it.",
                    "draft_tree: per level ONE tree_forward(drafter, ids[:, :end + drafted], end, "
                    "mask[:drafted, :drafted], depths[:drafted], cache, rows=width), then "
                    "logits.topk(b, dim=-1).indices when processor.is_greedy")
SAMPLED_CHILDREN = (" — siblings repeat a token where the drafter's top tokens are distinct: children drawn "
                    "from the one-hot q of greedy decoding (every draw the same token) instead of its top "
                    "b distinct tokens")
SHOWN_TOKENS = 24
LAW_HINT = ("the output must follow the target's law: at each node try its children in the "
            "order they were drawn with multi_draft_sampling (min(1, r_i/q) against the updated "
            "residual r_i), descend into the accepted child, and when all are rejected emit the "
            "token drawn from the last residual and stop: the levels after a stop (still computed, "
            "from a placeholder node) add nothing; after the deepest level take the bonus from p "
            "of the last accepted node")
SIBLING_HINT = ("under sampling a node's children are i.i.d. draws of its q: the multi-draft "
                "verifier's proof needs independent drafts, and two equal siblings must be possible. "
                "The pair is read from the first target forward, whose nodes must come in level order "
                "(the root's children first)",
                "draw the children with replacement: torch.multinomial(q, b, replacement=True)")


def discipline(check: CheckRun, run: LoopRun) -> None:
    """A greedy run's trees, then kv_cache's judge of its cache discipline, both against the
    reference tree loop: where the output is right, each target forward must score the
    reference's tree (its tokens in any order), since a wrong tree keeps the output right and
    shows only in what it accepts."""
    if not run.raised:
        greedy_trees(check, run.forwards, run.ids, run.target, run.drafter, run.prompt, run.shape, run.label)
    kv_cache.discipline(check, run, reference=tree_speculative_generate)


def greedy_trees(check: CheckRun, log: list, ids, target, drafter, prompt: list[int], kwargs: dict,
                 label: str) -> None:
    """Each target forward's tokens (a multiset: siblings may come in any order) against the
    reference's, up to the first forward whose role or token counts differ (the cache
    discipline's to judge); nothing when the output is wrong (the greedy properties say so)."""
    reference_ids, _, reference_log = traced(tree_speculative_generate, prompt, drafter, target, **kwargs)
    if ids != reference_ids:
        return
    for number, (got, want) in enumerate(zip(log, reference_log), 1):
        if (got.role, got.fed, got.cached) != (want.role, want.fed, want.cached):
            break
        if got.role == "target" and Counter(got.ids) != Counter(want.ids):
            text = len(prompt) if got.cached == 0 else 1  # the forward's text tokens: then its nodes
            branching = kwargs["branching"]
            repeated = repeats_siblings(got.ids[text:], branching) and not repeats_siblings(want.ids[text:], branching)
            # the cache discipline, judged next, would blame the caches for what this tree accepts
            check.fail("greedy trees are the drafter's top tokens",
                       f"forward {number}, the target's, was fed {got.ids[:SHOWN_TOKENS]}; the greedy tree "
                       f"of the reference's drafting gives these tokens in some order: "
                       f"{want.ids[:SHOWN_TOKENS]}{SAMPLED_CHILDREN if repeated else ''}",
                       GREEDY_TREE_HINT, case=label)
    check.require("greedy trees are the drafter's top tokens", True, "", case=label)


def repeats_siblings(nodes: list[int], branching: tuple[int, ...]) -> bool:
    """Whether two children of one node share a token, ``nodes`` being a tree of the first
    levels of ``branching`` in level order (False when no number of levels gives its size)."""
    for depth in range(len(branching) + 1):
        parents = tree_parents(branching[:depth])
        if len(parents) == len(nodes):
            children = [(parent, token) for parent, token in zip(parents, nodes)]
            return len(set(children)) < len(children)
    return False


def laws(check: CheckRun, run: LoopRun) -> None:
    """``run.ids``: the learner's ``(ids, mean_accepted)`` of each draw of the case
    ``run.case``; ``run.forwards``: what its first target forward was fed in each."""
    runs, first_trees, target, drafter, case, label = run.ids, run.forwards, run.target, run.drafter, run.case, run.label
    mean_hint = run.number_hint  # the check's, which its own properties show too
    samples = [(ids, acceptance.as_fraction(mean)) for ids, mean in runs]
    branching = case.shape["branching"]
    law = tree_laws.generate_law(target, drafter, case.prompt, branching, case.max_gen_len, case.processor,
                                 as_list(case.eos))
    law_tests(check, Samples([ids for ids, _ in samples], target, case, LAW_HINT, options=LAW_TEST))
    check.test("joint law of the output and mean_accepted",
               stats.goodness_of_fit(samples, law, "(sequence, mean_accepted)", **LAW_TEST), LAW_HINT, case=label)
    check.test("law of mean_accepted",
               stats.goodness_of_fit([m for _, m in samples], tree_laws.marginal(law, lambda o: o[1]),
                                     "mean_accepted", **LAW_TEST), mean_hint, case=label)
    if branching[0] >= 2:
        pairs = [tuple(ids[len(case.prompt): len(case.prompt) + 2]) for ids in first_trees]
        with torch.no_grad():
            q = case.processor(drafter(torch.tensor([case.prompt])).logits[0, -1].double()).tolist()
        sibling_law = {(a, b): q[a] * q[b] for a in range(len(q)) for b in range(len(q)) if q[a] * q[b] > 0}
        check.test("the root's first two children are i.i.d. draws of q",
                   stats.goodness_of_fit(pairs, sibling_law, "sibling pair", **LAW_TEST), SIBLING_HINT, case=label)
