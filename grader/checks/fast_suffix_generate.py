"""Check `fast_suffix_speculative_generate` (lesson 12), the suffix loop with lesson 7's static
cache and fixed-width verification step: every property of the suffix_generate check, on the
same cases and draws (grader/checks/suffix_generate.py), run eagerly (``compile=False``: the
same code the compiled step runs, on the tiny models, where the laws are exact). Its judges
(grader/judges/fast_suffix_generate.py) compare with the reference FAST loop: the greedy
mean_accepted (the same trees as the eager loop's) and the target's forwards, one of width
``max_nodes + 1`` per round with the static cache's counter where the reference leaves it (a path
kept without moving the counter back shows there; one whose keys stayed in their tree slots, in
the greedy text)."""
from grader.checks import suffix_generate
from grader.checks.harness import CheckRun

GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text: ONE fixed-width forward "
               "over the last token, the tree's nodes and padding, with a mask over the whole static cache, "
               "scores every node as a plain forward over its own path would; and a kept path's keys and values "
               "must sit right after the root before the next round reads them.",
               "static_tree_attention(mask, depths, end − 1, W, target_model.length, dtype), then "
               "target_model.run(tree_verify_step, ...); walk_deterministic_tree(p[:N + 1], parents, nodes); after "
               "the walk keep_path(target_model.cache, end − 1, rows, W) (row x of the verification sits at "
               "slot end − 1 + x)")


def run(check: CheckRun) -> None:
    suffix_generate.graded(check, "fast_suffix_speculative_generate", GREEDY_HINT, compile=False)
