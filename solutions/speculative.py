"""Lessons 3–4 — speculative decoding: a small drafter proposes, the target verifies.

Lesson 3: write ``speculative_generate`` without a cache, then run
``grader check speculative_generate``. Lesson 4: make ``use_cache=True`` work, then run
``grader check kv_cache``.

The loop falls into five small steps, stubbed below the loop with their contracts:
``forward`` (one model call, the last rows of logits), ``draft`` (the drafter's k
proposals), ``settle`` (how many tokens the round keeps, read on the host once),
``roll_back`` (crop a cache) and ``show_round`` (the ``debug`` print). Writing them first
and building ``speculative_generate`` from them is the suggested path; the grader checks
``speculative_generate`` alone, so a loop written another way is just as good.
"""
import os
import sys

import torch
from transformers import DynamicCache  # noqa: F401  (lesson 4: one cache per model)

# BEGIN SOLUTION
from solutions.autoregressive import as_list
from solutions.sampling import GreedyProcessor, LogitsProcessor
from solutions.verification import speculative_sampling
# LESSON
# from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
# from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
# from lessons.verification import speculative_sampling  # noqa: F401  (your lesson-2 verifier)
#
# # Earlier steps this lesson calls, and the exercise that grades each:
# #   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
# #   speculative_sampling (lesson 2: `grader check speculative_sampling`)
# # Not passed yet? Meanwhile take the reference's, in place of the import above:
# #   from solutions.sampling import GreedyProcessor, LogitsProcessor
# #   from solutions.verification import speculative_sampling
# # `grader check` and `grader grade` both accept it: each exercise is graded on its own
# # functions, and the reference is refused only for the exercise being graded.
# # The checks pass processors of their own, so a loop is graded before lesson 0 is done.
# END SOLUTION

__all__ = ["speculative_generate"]

COLOURS = {"accepted": "\033[32m", "rejected": "\033[9;31m", "correction": "\033[33m",
           "bonus": "\033[36m", "end": "\033[0m"}


def painted(kind: str, text: str) -> str:
    """``text`` in the ANSI colour of ``kind`` (a key of COLOURS) where colours render: a
    terminal or a Jupyter kernel, unless ``NO_COLOR`` is set; plain text in files and pipes."""
    jupyter = type(sys.stdout).__module__.startswith("ipykernel")  # its output renders them
    shown = "NO_COLOR" not in os.environ and (sys.stdout.isatty() or jupyter)
    return f"{COLOURS[kind]}{text}{COLOURS['end']}" if shown else text


@torch.inference_mode()  # no autograd bookkeeping at all: a few percent faster than no_grad
def speculative_generate(inputs: list[int], drafter, target, tokenizer=None, gamma: int = 5,
                         logits_processor: LogitsProcessor = GreedyProcessor(),
                         max_gen_len: int = 40, eos_tokens_id: int | list[int] = 1,
                         pad_token_id: int = 0, use_cache: bool = False,
                         skip_sample_adjustment: bool = False, first_target: bool = True,
                         debug: bool = False) -> tuple[list[int], float]:
    """Generate up to ``max_gen_len`` tokens after the prompt ``inputs`` (non-empty).

    Returns ``(ids, acceptance_rate)``: the generated ids, prompt excluded, as a list of
    Python ints; and the accepted drafts divided by the drafted tokens over the whole
    call, a float (0.0 when nothing was drafted: never divide 0 by 0).

    The contract, point by point (the grader checks each one):

    - ``first_target=True``: one target forward over the prompt samples the first token.
      With ``False`` the drafter starts straight from the prompt.
    - A round: the drafter proposes ``k = min(gamma, tokens still allowed − 1)`` tokens,
      one forward each, each sampled from ``q = logits_processor(logits of the last
      position)``; keep the k rows of q, shape ``[k, V]``.
    - Then ONE target forward over the sequence and its k drafts. Its last ``k + 1``
      positions, processed like q, give p ``[k + 1, V]``: row i scores draft i, row k is
      for the bonus token.
    - ``n, token = speculative_sampling(p, q, drafts)``: keep ``drafts[:n]``, then add
      ``token`` (the correction if ``n < k``, the bonus if ``n == k``). A round emits
      ``n + 1`` tokens.
    - ``eos_tokens_id`` (an int or a list): stop right after the earliest end token among
      the tokens a round emits, and include it. Never return more than ``max_gen_len``.
    - ``skip_sample_adjustment=True``: after a rejection, sample the token from ``p[n]``
      instead of the residual. It is biased; the notebook shows by how much.
    - ``debug=True``: print each round, the accepted drafts and the rejected one in
      different colours (``painted(kind, text)``), decoded with ``tokenizer`` when one is
      given.
    - ``pad_token_id`` may fill a preallocated buffer ``[1, len(inputs) + max_gen_len]``.

    Lesson 4, ``use_cache=True``: give each model a ``DynamicCache()`` created once and
    call ``model(new_ids, cache=cache, use_cache=True)``, feeding only the tokens that
    model has not seen (``cache.get_seq_length()`` tells how many it has). After each
    round both caches may hold rejected drafts: crop them (``cache.crop(-m)`` drops the
    last m) to the new sequence length minus one, the last token being fed next round.

    Hints: write the token at position ``n`` straight into the buffer with a tensor
    index (``ids.index_copy_``) and read ``n`` on the host once per round; greedy needs
    no special case, the greedy processor's one-hot distributions make the verifier
    accept exactly the drafts that equal the target's argmax.
    """
    # BEGIN SOLUTION
    device = target.device
    prompt_len, total_len = len(inputs), len(inputs) + max_gen_len
    ids = torch.full((1, total_len), pad_token_id, dtype=torch.long, device=device)
    ids[0, :prompt_len] = torch.tensor(inputs, dtype=torch.long, device=device)
    stop_ids = torch.tensor(as_list(eos_tokens_id), dtype=torch.long, device=device)
    drafter_cache = DynamicCache() if use_cache else None
    target_cache = DynamicCache() if use_cache else None
    end, drafted, accepted = prompt_len, 0, 0

    if first_target and end < total_len:
        p = logits_processor(forward(target, ids, end, target_cache, rows=1))
        ids[0, end] = logits_processor.sample(p[0])
        end += 1
        if torch.isin(ids[0, end - 1], stop_ids):  # the prefill's one host sync
            return ids[0, prompt_len:end].tolist(), 0.0

    while end < total_len:
        k = min(gamma, total_len - end - 1)  # keep one slot for the target's own token
        q_rows = draft(drafter, ids, end, k, logits_processor, drafter_cache)
        p = logits_processor(forward(target, ids, end + k, target_cache, rows=k + 1))  # [k+1, V]
        q = torch.stack(q_rows) if q_rows else p[:0]  # [k, V]
        drafts = ids[0, end : end + k].tolist() if debug else None  # before a token overwrites one
        rejected_idx, token = speculative_sampling(p, q, ids[0, end : end + k])
        if skip_sample_adjustment:  # the biased shortcut: p itself, not the residual
            token = logits_processor.sample(p.index_select(0, rejected_idx.view(1))[0])
        # write the token at end + rejected_idx with a tensor index: no host sync
        ids.index_copy_(1, (end + rejected_idx).view(1), token.view(1, 1))
        n, first_stop = settle(ids[0, end : end + k + 1], rejected_idx, stop_ids)
        if debug:
            show_round(drafts, n, ids[0, end + n].item(), tokenizer)
        drafted, accepted = drafted + k, accepted + n
        end += min(n, first_stop) + 1
        for cache in (drafter_cache, target_cache):
            roll_back(cache, end - 1)
        if first_stop <= n:
            break
    return ids[0, prompt_len:end].tolist(), accepted / drafted if drafted else 0.0
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def forward(model, ids: torch.Tensor, end: int, cache: DynamicCache | None, rows: int) -> torch.Tensor:
    """The model's logits ``[rows, V]`` for the last ``rows`` positions of ``ids[:, :end]``.

    ids ``[1, L]`` (the sequence buffer, valid up to ``end``). With a cache feed only
    ``ids[:, seen:end]``, ``seen = cache.get_seq_length()``; without one, all of
    ``ids[:, :end]``. Row ``j`` is the distribution of the token at ``end - rows + 1 + j``.
    """
    # BEGIN SOLUTION
    seen = cache.get_seq_length() if cache is not None else 0
    out = model(ids[:, seen:end], cache=cache, use_cache=cache is not None)
    return out.logits[0, -rows:]
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def draft(drafter, ids: torch.Tensor, end: int, k: int, processor, cache) -> list[torch.Tensor]:
    """Sample ``k`` drafts into ``ids[0, end:end + k]``, one drafter forward each (a draft
    is part of the next one's context); return their distributions q, k tensors ``[V]``."""
    # BEGIN SOLUTION
    rows = []
    for i in range(k):
        q = processor(forward(drafter, ids, end + i, cache, rows=1))[0]
        ids[0, end + i] = processor.sample(q)  # a device-side copy, no host sync
        rows.append(q)
    return rows
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def settle(block: torch.Tensor, rejected_idx: torch.Tensor, stop_ids: torch.Tensor) -> tuple[int, int]:
    """``(n, first_stop)`` as Python ints, with the round's one host sync.

    block ``[k+1]``: the accepted drafts ``block[:n]``, the target's token ``block[n]``, then
    rejected drafts; ``rejected_idx`` is n as a 0-dim tensor. ``first_stop`` is the index
    of the earliest end token among ``block[:n + 1]``, or ``k + 1`` when there is none.
    Hint: compute both on the device, then one ``.tolist()``.
    """
    # BEGIN SOLUTION
    emitted = torch.arange(block.shape[0], device=block.device) <= rejected_idx
    stops = torch.isin(block, stop_ids) & emitted
    # argmax finds the first True; the sentinel makes it k + 1 when there is none
    first_stop = torch.cat([stops, stops.new_ones(1)]).to(torch.uint8).argmax()
    n, first_stop = torch.stack([rejected_idx, first_stop]).tolist()
    return n, first_stop
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def roll_back(cache: DynamicCache | None, length: int) -> None:
    """Crop ``cache`` (if any) to its first ``length`` positions: the rejected drafts go.
    ``cache.crop(-m)`` drops the last m."""
    # BEGIN SOLUTION
    if cache is not None and cache.get_seq_length() > length:
        cache.crop(length - cache.get_seq_length())  # a negative count removes from the end
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def show_round(drafts: list[int], n: int, token: int, tokenizer=None) -> None:
    """Print one round: the accepted drafts ``drafts[:n]``, the first rejected draft (if
    ``n < len(drafts)``), then the target's token (a correction, or the bonus when every
    draft was accepted), each in its own colour (``painted``), decoded when ``tokenizer`` is given.
    A round with no drafts (the text's last token, no room left to draft) prints as
    ``[target only]`` and the token, not as ``[0/0 accepted]``."""
    # BEGIN SOLUTION
    def coloured(kind: str, token_id: int) -> str:
        text = tokenizer.decode([token_id]) if tokenizer is not None else f"{token_id} "
        return painted(kind, text)

    if not drafts:  # the last token of a text: no room for a draft, the target alone
        print(f"[target only] {coloured('bonus', token)}", flush=True)
        return
    shown = [coloured("accepted", t) for t in drafts[:n]]
    if n < len(drafts):
        shown.append(coloured("rejected", drafts[n]))
    shown.append(coloured("correction" if n < len(drafts) else "bonus", token))
    print(f"[{n}/{len(drafts)} accepted] {''.join(shown)}", flush=True)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION
