"""The fast_suffix_generate check's expected values: suffix_generate's judges against the
reference FAST loop, run eagerly as the check runs the learner's: its greedy mean_accepted (the
same trees as the eager loop's) and its target forwards, one of a fixed width per round."""
import functools

from grader.judges import suffix_generate
from solutions.suffix import fast_suffix_speculative_generate

REFERENCE = functools.partial(fast_suffix_speculative_generate, compile=False)
FORWARDS_HINT = ("every round verifies the tree in ONE target forward of a fixed width W = max_nodes + 1 (the "
                 "root, the nodes, then padding), so that one compiled graph serves every round; the static "
                 "cache's counter must then be moved back to just after the text and the kept path.",
                 "the prefill over the prompt (target_model.prefill), then per round target_model.run("
                 "tree_verify_step, ...) over ids[:, end − 1 : end − 1 + W] with static_tree_attention's mask "
                 "and positions, and after the walk keep_path(cache, end − 1, rows, W)")

greedy_number = functools.partial(suffix_generate.greedy_number, reference=REFERENCE)
forwards = functools.partial(suffix_generate.forwards, reference=REFERENCE, hint=FORWARDS_HINT)
