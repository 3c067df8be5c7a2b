"""What the eagle_generate check compares with: the target's greedy decoding, and the
reference loop's acceptance rate and target forwards on the same head."""
from grader.checks.harness import CheckRun
from grader.checks.loop_properties import GREEDY, GREEDY_LENGTH, NO_EOS
from grader.judges.loop_properties import greedy
from grader.observers.trace import LoggedModel
from grader.verdict import Hint
from solutions.eagle import eagle_generate

FORWARDS_HINT = ("the feature head drafts from the target's features, so the target runs once per round: "
                 "over the last token and the k drafts, its cache holding everything before them.",
                 "one target_step(target, ids[:, end − 1 : end + k], target_cache) per round, after the "
                 "prefill over the prompt")


def greedy_run(check: CheckRun, prompt: list[int], gamma: int, ids: list[int], rate: float, target, head,
               greedy_hint: Hint, rate_hint: Hint) -> None:
    """The output is the target's greedy text; the rate is the reference loop's with this head."""
    label = f"prompt {prompt}, gamma={gamma}"
    greedy(check, "greedy output", ids, target, prompt, greedy_hint, case=label,
           max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    _, expected = eagle_generate(prompt, target, head, gamma, GREEDY, GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    check.require("greedy acceptance rate", abs(rate - expected) < 1e-9,
                  f"returned {rate:.4g}; the reference loop with this head accepts {expected:.4g} of its "
                  "drafts: the head drafted from other inputs than the target's features", rate_hint, case=label)


def forwards(check: CheckRun, fed: list, prompt: list[int], target, head, kwargs: dict) -> None:
    """(tokens fed, tokens cached) per target forward, against the reference loop's."""
    log = []
    eagle_generate(prompt, LoggedModel(target, "target", log), head, logits_processor=GREEDY,
          eos_tokens_id=NO_EOS, **kwargs)
    expected = [(c.fed, c.cached) for c in log]
    check.require("one target forward per round", fed == expected,
                  f"(tokens fed, tokens cached) per target forward were {fed}; expected {expected}",
                  FORWARDS_HINT)
