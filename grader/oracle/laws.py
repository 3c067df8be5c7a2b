"""Exact laws of generated sequences, by enumerating every continuation through a model."""
import itertools

import torch


@torch.no_grad()
def sequence_law(model, prompt: list[int], length: int, processor, eos_ids: list[int]) -> dict:
    """The law of the first ``length`` generated tokens, stopping at an end token.

    Every one of the V^length continuations goes through ``model`` in one batched
    forward; ``processor`` (logits ``[..., V]`` -> probs) gives each step's distribution.
    Returns {outcome: probability}, an outcome being the tuple of generated ids up to and
    including the first end token, or all ``length`` ids. Summing the full products over
    everything after an end token gives exactly the probability of the truncated outcome.
    """
    vocab = model.config.vocab_size
    device = model.device
    continuations = torch.tensor(list(itertools.product(range(vocab), repeat=length)), device=device)
    prefix = torch.tensor(prompt, device=device).expand(len(continuations), -1)
    sequences = torch.cat([prefix, continuations[:, :-1]], dim=1)
    logits = model(sequences).logits[:, len(prompt) - 1 :].to(torch.float64)
    step_probs = processor(logits).gather(-1, continuations.unsqueeze(-1)).squeeze(-1)
    probs = step_probs.prod(dim=-1).tolist()
    law: dict = {}
    for ids, p in zip(continuations.tolist(), probs):
        outcome = tuple(truncate_at_eos(ids, eos_ids))
        law[outcome] = law.get(outcome, 0.0) + p
    return {o: p for o, p in law.items() if p > 0}


def truncate_at_eos(ids: list[int], eos_ids: list[int]) -> list[int]:
    """``ids`` up to and including the first end token."""
    for i, token in enumerate(ids):
        if token in eos_ids:
            return ids[: i + 1]
    return ids


def marginal(law: dict, position: int) -> dict:
    """The law of the token at ``position`` (``None`` when generation ended before it)."""
    out: dict = {}
    for outcome, p in law.items():
        token = outcome[position] if position < len(outcome) else None
        out[token] = out.get(token, 0.0) + p
    return out


def product(law_a: dict, law_b: dict) -> dict:
    """The law of ``(a, b)`` for independent ``a ~ law_a`` and ``b ~ law_b``."""
    return {(a, b): pa * pb for a, pa in law_a.items() for b, pb in law_b.items()}
