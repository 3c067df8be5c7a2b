"""Check `eagle_tree_generate`, the dynamic-tree loop drafted by a feature head (lesson 11),
with the properties of the chain loop's check (grader/checks/eagle_generate.py's
``run_loop``) on the same tiny target and head: greedy output equal to the target's own,
``mean_accepted`` equal to the reference loop's (it shows what the head read and the tree
it grew), end tokens, ``max_gen_len``, one target forward per round, and the target's exact
law under sampling, which children verified as samples of q, or with replacement, break."""
from grader.checks.eagle_generate import eagle_loop, law_case, run_loop
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import Loop, Returns
from solutions import sampling

GREEDY_RUNS = [([0], {"depth": 1, "top_k": 2, "total": 2}), ([2, 3, 4], {"depth": 3, "top_k": 2, "total": 5}),
               ([5, 1], {"depth": 4, "top_k": 3, "total": 10})]
LAW_CASES = [
    law_case(1, sampling.MultinomialProcessor(temperature=1.0), [0], {"depth": 2, "top_k": 2, "total": 4}, 4),
    law_case(2, sampling.MultinomialProcessor(temperature=0.6), [2, 3, 4, 5], {"depth": 3, "top_k": 3, "total": 6}, 4),
    law_case(3, sampling.TopKProcessor(temperature=1.0, top_k=3), [3], {"depth": 3, "top_k": 2, "total": 5}, 5),
]


def as_loop(check: CheckRun, generate) -> Loop:
    """The tree loop: ``generate(prompt, target, head, depth=..., top_k=..., total=...)``, its
    number mean_accepted."""
    return eagle_loop(check, generate, "eagle_tree_generate", {"depth": 3, "top_k": 2, "total": 6}, 3, Returns(
        "mean_accepted", "mean_accepted", lambda keywords: 4,
        "the nodes accepted per round (one target forward after the prefill), a Python float; 0.0 "
        "when no round ran"),
        greedy_hint=("under greedy decoding the output must be the target's own greedy text: ONE target forward "
                     "over the last token and the tree's nodes, with the tree's mask and positions, scores every "
                     "node as a plain forward over its own path would.",
                     "tree_layout(parents), then tree_attention(end, mask, depths, end − 1, dtype) for target_step; "
                     "after the walk keep the text and the accepted path in the target's cache (keep_positions: "
                     "row x at position end − 1 + x)"),
        number_hint=("under greedy decoding the tree, and so mean_accepted, is fixed by what the head reads: its "
                     "unread true pairs (f_t, x_(t+1)) once per round, then grow_tree from its last row.",
                     "keep the target's features of the root and of the accepted path (rows [0] + path of its "
                     "forward) for positions end − 1 … end + n − 1, and crop the head's cache back to its true "
                     "pairs: grow_tree's nodes were read on predicted features"),
        max_gen_len_hint="grow the tree only min(depth, tokens left − 1) deep, so that the round's own token "
                         "still fits",
        law_hint="the output must follow the target's law: a node's children are the head's chosen tokens, not "
                 "samples of q, so verify them as point masses, without replacement "
                 "(verify_deterministic_children), from the root down; a node without children emits a token "
                 "drawn from its p")


def run(check: CheckRun) -> None:
    run_loop(check, as_loop(check, check.function("eagle_tree_generate")), GREEDY_RUNS, LAW_CASES)
