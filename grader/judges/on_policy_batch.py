"""The on_policy_batch check's expected values: the target's logits over the returned ids,
and the exact laws of the continuations (grader/oracle/laws.py's enumeration)."""
import functools

import torch

from grader.checks.harness import CheckRun
from grader.checks.on_policy_batch import LENGTH, PROMPTS
from grader.judges import mistakes
from grader.oracle import laws, stats

TOLERANCE = 1e-9
LOGITS_HINT = ("target_logits[b, i] is the target's prediction of token P + i of row b from the tokens "
               "before it (\"Positions\" at the top of lessons/distill.py).",
               "one target forward over the whole ids [B, P + length], and its logits[:, P − 1 : −1].")
LAW_HINT = ("on-policy data is the drafter's own text, so that training sees the positions speculative "
            "decoding drafts: the rows marked from_target = False must be continued by the drafter, the others "
            "by the target. Text continued by the target (or fixed text) under a drafter's label is off-policy.",
            "continue each group of rows with its own model, token by token, each token sampled at T = 1 with "
            "the generator.",
            "probs = model(ids).logits[:, -1].softmax(dim=-1), a token drawn from it per row, "
            "ids = torch.cat([ids, token], dim=1); sample_continuations does it.")


def target_logits(check: CheckRun, target, ids: torch.Tensor, prompt_length: int, logits: torch.Tensor) -> None:
    """Require the returned ``logits`` to be the target's forward over ``ids`` at the
    continuation's positions, to TOLERANCE; name a usual mistake that explains them: the
    positions one late, log-probabilities or probabilities where the logits are meant."""
    with torch.no_grad():
        every = target(ids).logits
    expected = every[:, prompt_length - 1 : -1]
    gap = float((logits.double() - expected).abs().max())
    candidates = [("the logits one position late: logits[:, t] predicts token t + 1, so the first "
                   "continuation token's sit at P − 1", every[:, prompt_length:])]
    mistake = mistakes.named_mistake(logits, expected, candidates + mistakes.form_mistakes(expected, "logits"),
                                     TOLERANCE)
    check.require("the target's logits at every continuation position", gap <= TOLERANCE,
                  f"target_logits differ from the target's forward over ids by {gap:.3g}{mistake}", LOGITS_HINT)


def continuation_laws(check: CheckRun, target, drafter, prompts: torch.Tensor, ids: torch.Tensor,
                      from_target: torch.Tensor) -> None:
    """The rows marked from the drafter follow the drafter's exact law given their prompt
    (T = 1), the others the target's."""
    t1 = functools.partial(torch.softmax, dim=-1)  # sampling at T = 1: the exact law, no reference
    continuations = [tuple(row) for row in ids[:, prompts.shape[1]:].tolist()]
    for model, label, flag in ((drafter, "drafter", False), (target, "target", True)):
        law = {tuple(prompt): laws.sequence_law(model, prompt, LENGTH, t1, []) for prompt in PROMPTS}
        pairs = [(tuple(prompt), outcome) for prompt, outcome, marked in
                 zip(prompts.tolist(), continuations, from_target.tolist()) if marked == flag]
        check.test(f"the rows marked from the {label} follow the {label}'s law",
                   stats.conditional_goodness_of_fit(pairs, law, "continuation", "prompt"), LAW_HINT)
