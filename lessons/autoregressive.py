"""Lesson 0 — the baseline: plain autoregressive decoding, one target forward per token.

Exercise ``autoregressive_generate``: write the loop, then run
``grader check autoregressive_generate``.
"""
import torch
from transformers import DynamicCache  # noqa: F401  (you will need it for use_cache=True)

from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors

# The default logits_processor is your GreedyProcessor. The check passes processors of its
# own, so this loop is graded before your processors are done; to run it meanwhile, take the
# reference's in place of the import above (where your course has solutions/):
#   from solutions.sampling import GreedyProcessor, LogitsProcessor

__all__ = ["autoregressive_generate"]


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

    Returns the generated ids (prompt excluded) as a list of ints. Generation stops right
    after the first token in ``eos_tokens_id`` (an int or a list; the end token is
    included in the output); otherwise exactly ``max_gen_len`` tokens come out.

    - ``use_cache=False``: every step runs ``model(ids[:, :end])`` over the whole sequence
      ``[1, end]`` and takes ``.logits[0, -1]`` (shape ``[V]``).
    - ``use_cache=True``: create ``cache = DynamicCache()`` once and call
      ``model(new_ids, cache=cache, use_cache=True)``, feeding only the tokens the model
      has not seen (``cache.get_seq_length()`` tells how many it has).
    - each token is ``logits_processor.sample(logits_processor(logits))``.
    - ``pad_token_id`` may fill a preallocated buffer ``[1, len(inputs) + max_gen_len]``.
    - ``debug=True`` prints each token id as it comes.

    Hint: ``torch.isin(token, torch.tensor(eos_list))`` tests for an end token.
    """
    raise NotImplementedError


def as_list(eos_tokens_id: int | list[int]) -> list[int]:
    """``eos_tokens_id`` as a list of ids, whether it was given as an int or a list."""
    return [eos_tokens_id] if isinstance(eos_tokens_id, int) else list(eos_tokens_id)
