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
