"""The suffix_generate check's expected values: the reference loop's mean_accepted under greedy
decoding and its target forwards, with the same corpus (the decider's own, built by its run of the check)."""
from grader.checks.harness import CheckRun
from grader.judged.loops import GREEDY, GREEDY_LENGTH, NO_EOS, LoopRun
from grader.observers.trace import LoggedModel
from solutions.suffix import suffix_speculative_generate

NUMBER_HINT = ("under greedy decoding the trees, and so mean_accepted, are fixed by what the indexes hold: the "
               "corpus, and the text's own index, built from the prompt and the first token and extended with "
               "every round's emitted tokens.",
               "own = SuffixIndex(prompt + [first token]); each round, round_tree(text, own, corpus, max_nodes, "
               "threshold, total_len − end) with text the whole text so far; after the round own.extend(emitted "
               "tokens)")
HIGHER_HINT = ("a mean_accepted above the reference's counts nodes its trees may not hold: near the end a "
               "round's tree must be shallow enough that its path and its own token fit in max_gen_len, and the "
               "text's own index must hold the text so far, no more and no less.",
               "round_tree(text, own, corpus, max_nodes, threshold, total_len − end), whose last argument, the "
               "tokens still allowed, caps the tree's depth (0 in the last round); own.extend(emitted tokens) after "
               "every round")
FORWARDS_HINT = ("the tree is verified in ONE target forward per round, over the last token and the nodes, the "
                 "cache holding the text before them.",
                 "the prefill over the prompt, then per round target(ids[:, end − 1 : end + N], attention_mask=..., "
                 "position_ids=..., cache=cache)")


def greedy_number(check: CheckRun, run: LoopRun, reference=suffix_speculative_generate) -> None:
    """``run.number``, the learner's greedy mean_accepted, against ``reference``'s (a suffix
    loop with suffix_speculative_generate's contract) on the same corpus (``run.drafter``) and prompt."""
    number, label = run.number, run.label
    _, expected = reference(run.prompt, run.target, run.drafter, **run.shape,
                            logits_processor=GREEDY, max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    side = "higher" if number > expected else "lower"
    check.require("greedy mean_accepted", abs(number - expected) < 1e-9,
                  f"returned {number:.4g}, {side} than the reference loop's {expected:.4g} with this corpus",
                  HIGHER_HINT if number > expected else NUMBER_HINT, case=label)


def forwards(check: CheckRun, run: LoopRun, reference=suffix_speculative_generate,
             hint: tuple[str, str] = FORWARDS_HINT) -> None:
    """``run.forwards``, the learner's ``(tokens fed, tokens cached)`` per target forward,
    against ``reference``'s on the same corpus, prompt and shape."""
    log, fed = [], run.forwards
    reference(run.prompt, LoggedModel(run.target, "target", log), run.drafter, **run.shape, logits_processor=GREEDY,
              max_gen_len=GREEDY_LENGTH, eos_tokens_id=NO_EOS)
    expected = [(c.fed, c.cached) for c in log]
    check.require("one target forward per round", fed == expected,
                  f"(tokens fed, tokens cached) per target forward were {fed}; expected {expected}", hint)
