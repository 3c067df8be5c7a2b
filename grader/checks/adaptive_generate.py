"""Check `adaptive_speculative_generate` (lesson 12): lesson 4's loop whose drafts stop when
the drafter's confidence falls below a threshold. The properties every loop shares
(grader/checks/loop_properties.py: greedy output for two drafters and several gammas and
thresholds, a drafter equal to the target, end tokens, ``max_gen_len``), the greedy
acceptance rate equal to the reference loop's (it shows where the drafts stopped), and the
target's exact law of the first tokens at T = 1, 0.6 and top-k, which a stopping rule that
reads the drafted token, or q taken from the wrong row, breaks. The reference loop's rates
and the laws are the decider's alone (grader/judges/adaptive_generate.py)."""
import functools

from grader.checks import loop_properties as shared
from grader.checks.harness import CheckRun
from grader.checks.speculative_generate import MAX_GEN_LEN_HINT, SAME_MODEL_HINT, generated
from solutions import sampling

GREEDY_RATE: shared.Judge[shared.LoopRun] = shared.Judge("adaptive_generate.greedy_rate")
GREEDY_RUNS = [([0], {"gamma": 2, "threshold": 0.3}), ([2, 3, 4], {"gamma": 4, "threshold": 0.5}),
               ([5, 1], {"gamma": 6, "threshold": 0.7})]


def law_case(number: int, processor: sampling.LogitsProcessor, drafter: str, prompt: list[int], gamma: int,
             threshold: float, length: int) -> shared.LawCase:
    return shared.LawCase(f"law-{number}", f"{processor!r}, {drafter} drafter, prompt {prompt}, gamma={gamma}, "
                          f"threshold={threshold}, max_gen_len={length}", 300, processor, prompt, length,
                          shape={"gamma": gamma, "threshold": threshold}, drafter=drafter)


LAW_CASES = [
    law_case(1, sampling.MultinomialProcessor(temperature=1.0), "near", [0], 4, 0.4, 4),
    law_case(2, sampling.MultinomialProcessor(temperature=0.6), "GPT-2", [2, 3, 4, 5], 3, 0.3, 4),
    law_case(3, sampling.TopKProcessor(temperature=1.0, top_k=3), "near", [3], 4, 0.5, 5),
]
GREEDY_HINT = ("under greedy decoding the output must be the target's own greedy text, however many drafts a round "
               "makes: the target's forward over the last token and the m drafts verifies them all, row i for draft i.",
               "p = logits_processor(forward(target, ids, end + m, cache, rows=m + 1)), [m + 1, V], m = len(q_rows)")
LAW_HINT = ("the output must follow the target's law: the decision to stop may read q, never the token it would draw "
            "(a draft kept only when its own probability is high is not a sample of q); the drafts made are verified "
            "with lesson 2's speculative_sampling against their own rows of q")


def run(check: CheckRun) -> None:
    generate = check.function("adaptive_speculative_generate")
    target, drafters = shared.models()
    loop = as_loop(check, generate)
    shared.check_greedy_properties(check, loop, target, drafters, GREEDY_RUNS)
    for prompt, shape in GREEDY_RUNS:
        label = f"near drafter, prompt {prompt}, " + ", ".join(f"{k}={v}" for k, v in shape.items())
        _, rate = loop.call(prompt, drafters["near"], target, **shape, max_gen_len=shared.GREEDY_LENGTH,
                            eos_tokens_id=shared.NO_EOS, what=f"(greedy, {label})")
        GREEDY_RATE(check, shared.LoopRun(label, prompt, target, drafters["near"], shape, number=rate))
    check.stop_if_failed("law tests")
    for case in LAW_CASES:
        shared.check_law(check, loop, target, drafters, case, LAW_HINT)


def as_loop(check: CheckRun, generate) -> shared.Loop:
    """The adaptive loop for the shared greedy properties; their runs of one shape use a threshold of
    0 (never stop), so that a drafter equal to the target drafts, and has accepted, every token."""
    return shared.Loop(
        call=functools.partial(generated, check, generate), shape={"gamma": 4, "threshold": 0.0}, depth=4,
        first_drafted=1, all_accepted=lambda length: 1.0, drafted="a draft", accepts_every="draft",
        returns="acceptance rate", greedy_hint=GREEDY_HINT, same_model_hint=SAME_MODEL_HINT,
        end_tokens_hint="look for end tokens among all the tokens a round emits (accepted drafts and the last "
                        "one), stop right after the earliest one and include it", max_gen_len_hint=MAX_GEN_LEN_HINT)
