"""The adaptive_generate check's expected values: the reference loop's acceptance rate under greedy decoding."""
from grader.checks.harness import CheckRun
from grader.judged.loops import GREEDY, GREEDY_LENGTH, NO_EOS, LoopRun
from solutions.suffix import adaptive_speculative_generate

RATE_HINT = ("under greedy decoding where the drafts stop is fixed: before each draft, the drafter's confidence is "
             "the largest probability of softmax(logits) (greedy's q is one-hot, always 1), and below the threshold "
             "the round drafts no more; the draft it would have made is neither sampled nor verified.",
             "in draft_while_confident: confidence = (logits.softmax(-1) if processor.is_greedy else q).max(); "
             "if confidence < threshold: break, before sampling; the rate is accepted / drafts made")

LOW_RATE_HINT = ("the rate is accepted drafts / drafts made: a round that stops early made m ≤ k drafts, and only "
                 "those m count. If you count them so, the drafts stop elsewhere: " + RATE_HINT[0],
                 "drafted += len(q_rows), not k; then, in draft_while_confident: " + RATE_HINT[1].split(": ", 1)[1])


def greedy_rate(check: CheckRun, run: LoopRun) -> None:
    """The learner's greedy rate (``run.number``) against the reference loop's with the same drafter."""
    rate, label = run.number, run.label
    _, expected = adaptive_speculative_generate(run.prompt, run.drafter, run.target, **run.shape,
                                                logits_processor=GREEDY, max_gen_len=GREEDY_LENGTH,
                                                eos_tokens_id=NO_EOS)
    low = rate < expected  # a denominator of k drafts a round, where m ≤ k were made, gives a lower rate
    check.require("greedy acceptance rate", abs(rate - expected) < 1e-9,
                  f"returned {rate:.4g}; the reference loop gives {expected:.4g}: "
                  + ("lower: drafts counted that were never made, or drafts that stop elsewhere" if low
                     else "its drafts stop elsewhere"),
                  LOW_RATE_HINT if low else RATE_HINT, case=label)
