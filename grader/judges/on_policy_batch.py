"""The on_policy_batch check's expected values: the target's logits over the returned ids,
and the exact laws of the continuations (grader/oracle/laws.py's enumeration)."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import torch

from grader.judges import mistakes
from grader.oracle import laws, stats

if TYPE_CHECKING:  # types only: a judge reads what its check gives it, never the check's code
    from grader.checks.harness import CheckRun
    from grader.judged.losses import Batch

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


def target_logits(check: CheckRun, batch: Batch) -> None:
    """Require the returned logits to be the target's forward over the ids at the
    continuation's positions, to TOLERANCE; name a usual mistake that explains them: the
    positions one late, log-probabilities or probabilities where the logits are meant."""
    prompt_length, logits = batch.prompts.shape[1], batch.target_logits
    with torch.no_grad():
        every = batch.target(batch.ids).logits
    expected = every[:, prompt_length - 1 : -1]
    gap = float((logits.double() - expected).abs().max())
    candidates = [("the logits one position late: logits[:, t] predicts token t + 1, so the first "
                   "continuation token's sit at P − 1", every[:, prompt_length:])]
    mistake = mistakes.named_mistake(logits, expected, candidates + mistakes.form_mistakes(expected, "logits"),
                                     TOLERANCE)
    check.require("the target's logits at every continuation position", gap <= TOLERANCE,
                  f"target_logits differ from the target's forward over ids by {gap:.3g}{mistake}", LOGITS_HINT)


def continuation_laws(check: CheckRun, batch: Batch) -> None:
    """The rows marked from the drafter follow the drafter's exact law given their prompt
    (T = 1), the others the target's."""
    t1 = functools.partial(torch.softmax, dim=-1)  # sampling at T = 1: the exact law, no reference
    prompts = batch.prompts.tolist()
    continuations = [tuple(row) for row in batch.ids[:, len(prompts[0]):].tolist()]
    length = len(continuations[0])
    for model, label, flag in ((batch.drafter, "drafter", False), (batch.target, "target", True)):
        law = {prompt: laws.sequence_law(model, list(prompt), length, t1, [])
               for prompt in dict.fromkeys(map(tuple, prompts))}
        pairs = [(tuple(prompt), outcome) for prompt, outcome, marked in
                 zip(prompts, continuations, batch.from_target.tolist()) if marked == flag]
        check.test(f"the rows marked from the {label} follow the {label}'s law",
                   stats.conditional_goodness_of_fit(pairs, law, "continuation", "prompt"), LAW_HINT)
