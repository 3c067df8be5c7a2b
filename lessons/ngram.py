"""Lesson 5 — drafter-free speculation: draft with n-grams of the text instead of a model.

Exercise ``ngram``: write ``NGramStorage`` and ``ngram_assisted_speculative_generate``,
then run ``grader check ngram``. The grader tests your storage alone, and your loop
with the course's storage (so one can be finished before the other).

Smaller steps, stubbed below with their contracts and not graded on their own:
``PromptLookup`` (a storage that learns the prompt and ignores every update: prompt
lookup, transformers' ``prompt_lookup_num_tokens``; notebook 05 compares it), ``propose``
(a round's drafts) and ``rate`` (the acceptance rate). The loop can also reuse your
lesson-3 steps ``forward``, ``roll_back`` and ``show_round``.
"""
import torch
from transformers import DynamicCache  # noqa: F401  (use_cache=True: one cache for the target)

from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
from lessons.speculative import forward, roll_back, show_round  # noqa: F401  (your lesson-3 steps)
from lessons.verification import speculative_sampling  # noqa: F401  (your lesson-2 verifier)

# Earlier steps this lesson calls, and the exercise that grades each:
#   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
#   speculative_sampling (lesson 2: `grader check speculative_sampling`)
#   forward, roll_back, show_round (lesson 3's steps: `grader check speculative_generate`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.sampling import GreedyProcessor, LogitsProcessor
#   from solutions.verification import speculative_sampling
#   from solutions.speculative import forward, roll_back, show_round
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.
# The checks pass processors of their own, so a loop is graded before lesson 0 is done.

__all__ = ["NGramStorage", "PromptLookup", "ngram_assisted_speculative_generate"]


class NGramStorage:
    """Counts of which token followed each context of 1 to ``n − 1`` tokens.

    The contract (the grader checks each point):

    - ``NGramStorage(n, vocab_size)``, ``n >= 2``; token ids are ints in ``[0, vocab_size)``.
    - ``initialize(ids)``: forget everything, then count every n-gram of ``ids`` (the
      prompt): token ``ids[i]`` after each suffix of ``ids[:i]`` of 1 to ``n − 1`` tokens.
    - ``update(context, tokens)``: count each of ``tokens`` (a list) once after each
      suffix of ``context`` of 1 to ``n − 1`` tokens. ``context`` may be longer.
    - ``next_token(context) -> int | None``: take the longest suffix of ``context`` (at most
      ``n − 1`` tokens) that was ever counted, and return its most frequent continuation
      (on equal counts, the continuation counted first). ``None`` when no suffix was ever
      counted, not even the last token alone, or when ``context`` is empty.

    Hints: one dict from context tuples (of any length) to ``{token: count}`` holds every
    level; Python dicts keep insertion order, and ``max(d, key=d.get)`` returns the first
    of the largest values.
    """

    def __init__(self, n: int, vocab_size: int):
        raise NotImplementedError

    def initialize(self, ids: list[int]) -> None:
        raise NotImplementedError

    def update(self, context: list[int], tokens: list[int]) -> None:
        raise NotImplementedError

    def next_token(self, context: list[int]) -> int | None:
        raise NotImplementedError


class PromptLookup:
    """A storage that wraps another (``PromptLookup(NGramStorage(3, V))``): ``initialize``
    and ``next_token`` pass through to it, ``update`` does nothing, so the drafts only
    ever copy continuations found in the prompt."""

    def __init__(self, storage):
        raise NotImplementedError

    def initialize(self, ids: list[int]) -> None:
        raise NotImplementedError

    def update(self, context: list[int], tokens: list[int]) -> None:
        raise NotImplementedError

    def next_token(self, context: list[int]) -> int | None:
        raise NotImplementedError


@torch.inference_mode()  # no autograd bookkeeping at all: a few percent faster than no_grad
def ngram_assisted_speculative_generate(inputs: list[int], ngramstorage: NGramStorage, target,
                                        tokenizer=None, gamma: int = 5, filler_top_k: int = 3,
                                        logits_processor: LogitsProcessor = GreedyProcessor(),
                                        max_gen_len: int = 40, eos_tokens_id: int | list[int] = 1,
                                        pad_token_id: int = 0, use_cache: bool = False,
                                        first_target: bool = True, stop_if_unknown: bool = False,
                                        debug: bool = False) -> tuple[list[int], float]:
    """Speculative decoding where ``ngramstorage`` drafts instead of a drafter model.

    Returns ``(ids, acceptance_rate)`` like ``speculative_generate``: the generated ids
    (prompt excluded, Python ints, up to and including the earliest end token, at most
    ``max_gen_len``) and accepted drafts / drafted tokens (0.0 when nothing was drafted).

    The contract, point by point:

    - Keep the text on the host (a list of ints): ``ngramstorage.initialize(inputs)``
      first; every token the text gains is then counted with
      ``ngramstorage.update(text before it, [token])``.
    - ``filler_top_k``: at each position the target scored and the text kept, first
      count the target's ``filler_top_k`` highest-logit tokens there
      (``ngramstorage.update(text before it, top_ids)``), then the token itself.
    - A round drafts up to ``k = min(gamma, tokens left − 1)`` tokens: draft i is
      ``ngramstorage.next_token(text + drafts[:i])``. Where that is ``None`` the draft is
      the *filler*, the token of highest target logit at the last position the target
      scored and the text kept; with ``stop_if_unknown``, or when the target has scored
      nothing yet, the round stops drafting there instead (it may draft nothing).
    - ``first_target=True``: the first round drafts nothing, so the target alone samples
      the first token from the prompt.
    - ONE target forward over the text and the k drafts; its last ``k + 1`` logits rows,
      processed, are p ``[k + 1, V]``. The drafts are point masses,
      ``q = one_hot(drafts, V)`` ``[k, V]``: ``speculative_sampling(p, q, drafts)`` accepts
      draft i with probability ``p_i(d_i)`` and replaces a rejection with a draw from
      ``max_fn(p_i − q_i)``, p without the draft. Keep ``drafts[:n]`` and the token.
    - ``use_cache=True``: one ``DynamicCache`` for the target; feed only what it lacks and
      crop it after each round to the text's length minus one.
    - ``debug=True``: print each round (your ``show_round`` from lesson 3 does it).

    Never replace a rejected draft with a fresh draw from p: that draw can be the draft
    again, which makes it too likely. The notebook computes by how much.

    Hints: ``torch.nn.functional.one_hot(drafts, V).to(p.dtype)``; ``logits.topk(m).indices``;
    bring n, the token and the top-k ids to the host in one ``.tolist()`` per round.
    """
    raise NotImplementedError


def propose(storage, text: list[int], k: int, filler: int | None) -> list[int]:
    """Up to ``k`` drafts, draft i being ``storage.next_token(text + drafts[:i])``; where
    that is ``None`` the draft is ``filler``, or drafting stops there when ``filler`` is None."""
    raise NotImplementedError


def rate(accepted: int, drafted: int) -> float:
    """Accepted drafts / drafted tokens as a float; 0.0 when nothing was drafted."""
    raise NotImplementedError
