"""Lesson 8's picture of a ragged round: what every cache column of every row holds.

``record_rounds`` runs a lesson-8 module's ``batched_speculative_generate`` with its
``Lane`` class swapped for a subclass that copies the target lane's columns after each
round's rejection; ``cell_kinds`` names what each cell of one recorded round holds, for
``imshow``.
"""
import inspect
import sys
from dataclasses import dataclass
from types import ModuleType

import torch

KINDS = ("padding", "prompt", "earlier tokens", "hole (earlier round)", "accepted draft",
         "rejected draft (hole)", "the round's new token", "finished row (holes)")


@dataclass(eq=False)  # tensors: no field-wise ==
class Round:
    """The target's cache columns after one round's rejection (and crop)."""

    ids: torch.Tensor  # [B, C] token ids
    mask: torch.Tensor  # [B, C] 1: a real token of the row, 0: padding or a hole
    drafts: int  # k, the drafts each row was fed this round
    draft_columns: int  # how many of them are still in the cache (the rest were cropped)
    kept: list[int]  # [B] drafts each row accepted
    running: list[bool]  # [B] rows that took part in the round
    new: list[int | None] | None = None  # [B] each row's new token (None: finished), fed next round


def record_rounds(module: ModuleType, prompts: list[list[int]], drafter, target, **kwargs):
    """``((outputs, rates), rounds)``: ``module.batched_speculative_generate(prompts,
    drafter, target, **kwargs)`` and one ``Round`` per round of it. The new tokens are read
    from the first column of the next target forward (the rows' pending tokens), so the
    last round's ``new`` stays None."""
    rounds: list[Round] = []
    generate = module.batched_speculative_generate
    home = sys.modules[inspect.unwrap(generate).__module__]  # where it looks Lane up (in a
    base = home.Lane  # notebook, the reference's module while the learner's is unfinished)

    class Recording(base):
        def feed(self, tokens, valid):
            if self.model is target and rounds and rounds[-1].new is None:
                rounds[-1].new = [int(t) if v else None
                                  for t, v in zip(tokens[:, 0].tolist(), valid[:, 0].tolist())]
            return super().feed(tokens, valid)

        def reject(self, drafts, kept, most_kept):
            width, running = self.mask.shape[1], (self.mask[:, -1] == 1).tolist()
            super().reject(drafts, kept, most_kept)
            if self.model is target:
                remaining = drafts - (width - self.mask.shape[1])
                rounds.append(Round(self.ids.clone(), self.mask.clone(), drafts, remaining,
                                    [int(n) for n in torch.as_tensor(kept).tolist()], running))

    home.Lane = Recording
    try:
        result = generate(prompts, drafter, target, **kwargs)
    finally:
        home.Lane = base
    if not rounds:
        raise RuntimeError("no round was recorded: batched_speculative_generate must build its "
                           "lanes with its module's Lane (Lane(target, ...)) and call the target "
                           "lane's reject once per round")
    return result, rounds


def cell_kinds(round_: Round, prompt_lengths: list[int]) -> torch.Tensor:
    """``[B, C + 1]`` indices into ``KINDS``: the round's ``C`` cache columns, then one
    column for each row's new token (where the next round feeds it)."""
    if round_.new is None:
        raise ValueError("the last round has no next forward to read its new tokens from")
    batch, columns = round_.mask.shape
    kinds = torch.zeros((batch, columns + 1), dtype=torch.long)
    first_draft = columns - round_.draft_columns
    for b in range(batch):
        real = round_.mask[b].tolist()
        seen, last_real = 0, max((c for c, r in enumerate(real) if r), default=-1)
        for c, r in enumerate(real):
            if seen == 0 and not r:
                kind = "padding"
            elif c >= first_draft:
                i = c - first_draft
                kind = ("finished row (holes)" if not round_.running[b] else
                        "accepted draft" if i < round_.kept[b] else "rejected draft (hole)")
            elif r:
                kind = "prompt" if seen < prompt_lengths[b] else "earlier tokens"
            else:
                kind = "finished row (holes)" if not round_.running[b] and c > last_real else "hole (earlier round)"
            seen += r
            kinds[b, c] = KINDS.index(kind)
        kinds[b, columns] = KINDS.index("the round's new token" if round_.new[b] is not None
                                        else "finished row (holes)")
    return kinds
