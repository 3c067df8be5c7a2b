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


def run(check: CheckRun) -> None:
    suffix_generate.graded(check, "fast_suffix_speculative_generate", compile=False)
