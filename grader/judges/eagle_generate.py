"""What lesson 11's loop checks compare with (grader/checks/eagle_generate.py's ``run_loop``):
the target's greedy decoding, and the reference loop's number and target forwards on the
same head."""
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import GREEDY, GREEDY_LENGTH, NO_EOS
from grader.judges.loop_properties import greedy
from grader.observers.trace import LoggedModel
from grader.verdict import Hint
from solutions.eagle import eagle_generate, eagle_tree_generate

REFERENCES = {"eagle_generate": eagle_generate, "eagle_tree_generate": eagle_tree_generate}
FORWARDS_HINT = ("the feature head drafts from the target's features, so the target runs once per round: "
                 "over the last token and the round's drafts, its cache holding everything before them.",
                 "one target_step(target, ids[:, end − 1 : end + k], target_cache) per round, after the "
                 "prefill over the prompt (a tree's round: over the last token and its nodes)")
HEAD_CACHE_HINT = ("each round the head reads the pairs it lacks, (f_t, x_(t+1)) for the positions the "
                   "target verified since its last true pair; its cache holds only pairs built on the target's "
                   "own features, so what its drafting steps (a tree's nodes too) added must go after each round.",
                   "after each round, roll_back(head_cache, end − 1) (crop it to the pairs of the text but its "
                   "last token); the next round reads true_features[:, read : end − 1] and ids[:, read + 1 : end], "
                   "read = head_cache.get_seq_length()")


def crashed(check: CheckRun, feeds: list, raised: str, label: str) -> None:
    """A greedy run that raised after a call of the head's decoder fed no pairs: the sign of a
    head cache left holding the round's drafting steps. ``feeds``: ``[pairs fed, pairs its
    cache held]`` per call, as grader/observers/head_feeds.py checked them)."""
    empty = next((number for number, (fed, _) in enumerate(feeds, 1) if fed == 0), None)
    if empty is None:
        return
    held = feeds[empty - 1][1]
    check.fail("the head reads the pairs it lacks", f"call {empty} of the head fed it no pairs"
               + (f", its cache already holding {held}" if held is not None else "")
               + f": the slice of the pairs it lacked was empty; then it raised: {raised}", HEAD_CACHE_HINT,
               case=label)


def greedy_run(check: CheckRun, loop: str, prompt: list[int], shape: dict, ids: list[int], number: float,
               number_name: str, target, head, greedy_hint: Hint, rate_hint: Hint) -> None:
    """The output is the target's greedy text; the number is the reference loop's with this head."""
    label = ", ".join([f"prompt {prompt}"] + [f"{key}={value}" for key, value in shape.items()])
    greedy(check, "greedy output", ids, target, prompt, greedy_hint, case=label,
           max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    _, expected = REFERENCES[loop](prompt, target, head, **shape, logits_processor=GREEDY,
                                   max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    check.require(f"greedy {number_name}", abs(number - expected) < 1e-9,
                  f"returned {number:.4g}; the reference loop with this head gives {expected:.4g}: the head "
                  "drafted from other inputs than the target's features", rate_hint, case=label)


def forwards(check: CheckRun, loop: str, fed: list, prompt: list[int], target, head, shape: dict) -> None:
    """(tokens fed, tokens cached) per target forward, against the reference loop's."""
    log = []
    REFERENCES[loop](prompt, LoggedModel(target, "target", log), head, **shape, logits_processor=GREEDY,
                     max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    expected = [(c.fed, c.cached) for c in log]
    check.require("one target forward per round", fed == expected,
                  f"(tokens fed, tokens cached) per target forward were {fed}; expected {expected}",
                  FORWARDS_HINT)
