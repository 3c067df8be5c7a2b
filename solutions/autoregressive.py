"""Lesson 0 — the baseline: plain autoregressive decoding, one target forward per token."""
import torch
from transformers import DynamicCache

from solutions.sampling import GreedyProcessor, LogitsProcessor


@torch.inference_mode()  # no autograd bookkeeping at all: a few percent faster than no_grad
def autoregressive_generate(
    inputs: list[int],
    model,
    max_gen_len: int = 40,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    eos_tokens_id: int | list[int] = 1,
    pad_token_id: int = 0,
    use_cache: bool = False,
    debug: bool = False,
) -> list[int]:
    """Generate up to ``max_gen_len`` tokens after the prompt ``inputs``.

    Returns the generated ids (prompt excluded). Generation stops right after the first
    token in ``eos_tokens_id`` (included in the output). ``use_cache=False`` runs the
    model over the whole sequence at every step; ``use_cache=True`` keeps a transformers
    ``DynamicCache`` and feeds only the token the model has not seen yet.
    ``pad_token_id`` fills the preallocated sequence buffer ``[1, len(inputs) + max_gen_len]``.
    """
    device = model.device
    stop_ids = torch.tensor(as_list(eos_tokens_id), device=device)
    total_len = len(inputs) + max_gen_len
    ids = torch.full((1, total_len), pad_token_id, dtype=torch.long, device=device)
    ids[0, : len(inputs)] = torch.tensor(inputs, dtype=torch.long, device=device)
    cache = DynamicCache() if use_cache else None
    end = len(inputs)
    while end < total_len:
        seen = cache.get_seq_length() if use_cache else 0
        logits = model(ids[:, seen:end], cache=cache, use_cache=use_cache).logits[0, -1]
        token = logits_processor.sample(logits_processor(logits))
        ids[0, end] = token
        end += 1
        if debug:
            print(token.item(), end=" ", flush=True)
        if torch.isin(token, stop_ids):  # one host sync per token: we must know when to stop
            break
    if debug:
        print()
    return ids[0, len(inputs) : end].tolist()


def as_list(eos_tokens_id: int | list[int]) -> list[int]:
    """``eos_tokens_id`` as a list of ids, whether it was given as an int or a list."""
    return [eos_tokens_id] if isinstance(eos_tokens_id, int) else list(eos_tokens_id)
