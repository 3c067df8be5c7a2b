"""Check `on_policy_batch` on a tiny pair (a two-layer Llama target, a one-layer Llama
drafter, six tokens, float64): the types and shapes, the prompts kept, the mixture's row
count exact for several fractions; then, the decider's alone (grader/judges/on_policy_batch.py),
the target's logits at every continuation position and the law of the continuations: the
rows marked as the drafter's must follow the drafter's exact law of two tokens, the others
the target's (χ² per prompt, grader/oracle)."""
import torch

from grader.checks.harness import CheckRun
from grader.judged.losses import Batch
from grader.oracle import tiny

MODEL_SEED = 11
PROMPTS = ([2, 3], [4, 0])
LENGTH = 2
ROWS = 1600  # 1,200 drafter rows and 400 target rows, half of each per prompt
FRACTION = 0.25
COUNT_CASES = ((10, 1 / 3), (7, 0.5), (6, 0.0), (5, 1.0))  # (rows, fraction): round() of each
COUNT = "round(target_fraction · B) rows from the target"  # the property, on each (rows, fraction)
COUNT_HINT = ("exactly round(target_fraction · B) rows come from the target (from_target True), the rest "
              "from the drafter: a fixed count, not a coin flip per row.",
              "from_target = torch.arange(B) < round(target_fraction * B): the first rows are the target's.")
PROMPTS_HINT = ("each row of ids is its prompt followed by its continuation: ids [B, P + length].",
                "start from ids = prompts and append each sampled token: torch.cat([ids, token], dim=1).")


def models():
    return tiny.tiny_llama(MODEL_SEED, layers=2), tiny.tiny_llama(MODEL_SEED + 1, layers=1)


def run(check: CheckRun) -> None:
    batch_fn = check.function("on_policy_batch")
    target, drafter = models()
    rows = ROWS * check.draws  # the rows feed the law tests: the grading config's draws multiply them
    prompts = torch.tensor([PROMPTS[i % len(PROMPTS)] for i in range(rows)])
    check.seed_everything("law")
    result = check.call(batch_fn, drafter, target, prompts, LENGTH, FRACTION, check.generator("law"),
                        what=f"(B = {rows}, length {LENGTH}, target_fraction {FRACTION})")
    ids, target_logits, from_target = returned(check, result, rows, len(PROMPTS[0]))
    check.require("prompts kept", torch.equal(ids[:, : prompts.shape[1]], prompts),
                  "the first P columns of ids are not the prompts", PROMPTS_HINT)
    check.require(COUNT, int(from_target.sum()) == round(FRACTION * rows),
                  f"{int(from_target.sum())} rows are marked from_target; expected {round(FRACTION * rows)}",
                  COUNT_HINT, case=f"B = {rows}, fraction {FRACTION}")
    batch = Batch(target, drafter, prompts, ids, target_logits, from_target)
    check.judge("target_logits", batch)
    for rows, fraction in COUNT_CASES:
        small = torch.tensor([PROMPTS[0]] * rows)
        result = check.call(batch_fn, drafter, target, small, LENGTH, fraction, check.generator("count", rows),
                            what=f"(B = {rows}, target_fraction {fraction:.4g})")
        _, _, flags = returned(check, result, rows, len(PROMPTS[0]))
        check.require(COUNT, int(flags.sum()) == round(fraction * rows),
                      f"{int(flags.sum())} of {rows} rows are marked from_target; expected "
                      f"{round(fraction * rows)}", COUNT_HINT, case=f"B = {rows}, fraction {fraction:.4g}")
    # a wrong target_logits (judged above) stops the decider here too; the runner, which never
    # judges, goes on, but only to the law tests' judge: no call of the learner's code follows
    check.stop_if_failed("laws of the continuations")
    check.judge("continuation_laws", batch)


def returned(check: CheckRun, result, rows: int, prompt_length: int):
    """``(ids, target_logits, from_target)`` on the CPU, after checking types and shapes."""
    shapes = [(rows, prompt_length + LENGTH), (rows, LENGTH, tiny.TINY_VOCAB), (rows,)]
    if not (isinstance(result, (tuple, list)) and len(result) == 3
            and all(isinstance(t, torch.Tensor) for t in result)):
        check.fail("return value", f"returned {type(result).__name__} {str(result)[:80]}; expected a triple "
                   "(ids, target_logits, from_target) of tensors")
    got = [tuple(t.shape) for t in result]
    kinds = (not result[0].is_floating_point(), result[1].is_floating_point(), result[2].dtype == torch.bool)
    if got != shapes or not all(kinds):
        check.fail("return types", f"returned shapes {got} and dtypes {[str(t.dtype) for t in result]}; "
                   f"expected ids {list(shapes[0])} (integers), target_logits {list(shapes[1])} (floats), "
                   f"from_target {list(shapes[2])} (torch.bool)")
    return result[0].cpu().long(), result[1].detach().cpu(), result[2].cpu()
