"""Lessons 3–4 — speculative decoding: a small drafter proposes, the target verifies.

A round: the drafter samples ``k ≤ gamma`` tokens one by one; the target scores the whole
block in one forward, which gives ``k + 1`` distributions; ``speculative_sampling`` keeps
the longest accepted prefix and adds one token of the target's own (the correction after
a rejection, the bonus when every draft was accepted). A round emits 1 to ``k + 1``
tokens for one target forward, and the output has exactly the target's law.

Greedy decoding needs no special case: ``GreedyProcessor`` gives one-hot distributions,
for which ``speculative_sampling`` accepts a draft iff it is the target's argmax and the
residual ``max_fn(p − q)`` is the one-hot of that argmax. So the output equals greedy
target-only decoding token for token (``greedy_match`` would give the same verdicts).
"""
import os
import sys

import torch
from transformers import DynamicCache

from solutions.autoregressive import as_list
from solutions.sampling import GreedyProcessor, LogitsProcessor
from solutions.verification import speculative_sampling

COLOURS = {"accepted": "\033[32m", "rejected": "\033[9;31m", "correction": "\033[33m",
           "bonus": "\033[36m", "end": "\033[0m"}


def painted(kind: str, text: str) -> str:
    """``text`` in the ANSI colour of ``kind`` (a key of COLOURS) where colours render: a
    terminal or a Jupyter kernel, unless ``NO_COLOR`` is set; plain text in files and pipes."""
    jupyter = type(sys.stdout).__module__.startswith("ipykernel")  # its output renders them
    shown = "NO_COLOR" not in os.environ and (sys.stdout.isatty() or jupyter)
    return f"{COLOURS[kind]}{text}{COLOURS['end']}" if shown else text


@torch.inference_mode()  # no autograd bookkeeping at all: a few percent faster than no_grad
def speculative_generate(
    inputs: list[int],
    drafter,
    target,
    tokenizer=None,
    gamma: int = 5,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    max_gen_len: int = 40,
    eos_tokens_id: int | list[int] = 1,
    pad_token_id: int = 0,
    use_cache: bool = False,
    skip_sample_adjustment: bool = False,
    first_target: bool = True,
    debug: bool = False,
) -> tuple[list[int], float]:
    """Generate up to ``max_gen_len`` tokens after the prompt ``inputs`` (non-empty).

    Returns ``(ids, acceptance_rate)``: the generated ids (prompt excluded; they stop right
    after the earliest token of ``eos_tokens_id``, an int or a list) and the fraction of
    drafted tokens the target accepted (0.0 when nothing was drafted).

    - ``first_target``: the target itself samples the first token (a prefill forward over
      the prompt), so the drafter starts from a context the target has seen.
    - ``gamma``: drafts per round, fewer near the end so that the round's own token still
      fits: never more than ``max_gen_len`` tokens come out.
    - ``logits_processor`` turns both models' logits into the distributions q (drafter) and
      p (target); the output follows the law of p, whatever the drafter.
    - ``use_cache``: both models keep a ``DynamicCache``; rejected drafts are cropped away,
      so every forward after the first feeds only tokens the model has not seen.
    - ``skip_sample_adjustment``: after a rejection, sample from p instead of the residual
      ``max_fn(p − q)``. Faster to explain, but biased: the output no longer follows p.
    - ``debug``: print each round, accepted drafts green, rejected red, the target's own
      token yellow (correction) or cyan (bonus); decoded when a ``tokenizer`` is given.
    - ``pad_token_id`` fills the sequence buffer ``[1, len(inputs) + max_gen_len]``.

    Tensors stay on the target's device (the drafter is assumed to share it); a round
    syncs with the host once, to learn how many tokens it emitted.
    """
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


def forward(model, ids: torch.Tensor, end: int, cache: DynamicCache | None, rows: int) -> torch.Tensor:
    """The model's logits ``[rows, V]`` for the last ``rows`` positions of ``ids[:, :end]``.

    With a cache only ``ids[:, seen:end]`` goes in, ``seen`` being what the cache holds;
    row ``j`` is the distribution of the token at ``end - rows + 1 + j``.
    """
    seen = cache.get_seq_length() if cache is not None else 0
    out = model(ids[:, seen:end], cache=cache, use_cache=cache is not None)
    return out.logits[0, -rows:]


def draft(drafter, ids: torch.Tensor, end: int, k: int, processor, cache) -> list[torch.Tensor]:
    """Sample ``k`` drafts into ``ids[0, end:end + k]``; returns their distributions q, k × ``[V]``.

    One drafter forward per draft: each draft is part of the next one's context.
    """
    rows = []
    for i in range(k):
        q = processor(forward(drafter, ids, end + i, cache, rows=1))[0]
        ids[0, end + i] = processor.sample(q)  # a device-side copy, no host sync
        rows.append(q)
    return rows


def settle(block: torch.Tensor, rejected_idx: torch.Tensor, stop_ids: torch.Tensor) -> tuple[int, int]:
    """``(n, first_stop)`` as ints, with the round's one host sync.

    block ``[k+1]``: the accepted drafts ``block[:n]``, the target's token ``block[n]``, then
    rejected drafts. ``first_stop`` is the earliest end token among ``block[:n + 1]``, or
    ``k + 1`` when there is none.
    """
    emitted = torch.arange(block.shape[0], device=block.device) <= rejected_idx
    stops = torch.isin(block, stop_ids) & emitted
    # argmax finds the first True; the sentinel makes it k + 1 when there is none
    first_stop = torch.cat([stops, stops.new_ones(1)]).to(torch.uint8).argmax()
    n, first_stop = torch.stack([rejected_idx, first_stop]).tolist()
    return n, first_stop


def roll_back(cache: DynamicCache | None, length: int) -> None:
    """Crop the cache to its first ``length`` positions: the rejected drafts go."""
    if cache is not None and cache.get_seq_length() > length:
        cache.crop(length - cache.get_seq_length())  # a negative count removes from the end


def show_round(drafts: list[int], n: int, token: int, tokenizer=None) -> None:
    """Print one round: accepted drafts, the first rejected draft, the target's token.

    A round with no drafts (the text's last token) prints as ``[target only]`` and the token.
    """
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
