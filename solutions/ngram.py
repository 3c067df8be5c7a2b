"""Lesson 5 — drafter-free speculation: the drafts come from n-grams of the text so far.

Text repeats itself, code above all: an identifier, a call, a line pattern. An
``NGramStorage`` counts which token followed each context of the text; a round drafts
the tokens it predicts, one after the other, and the target verifies them in one forward
exactly as in lesson 3. No drafter model runs at all.

A deterministic draft is a point mass: the "drafter" proposes ``d`` with probability 1,
so ``q = one_hot(d)``. Lesson 1's rule with this q accepts ``d`` with probability
``min(1, p(d) / 1) = p(d)`` and, on a rejection, samples from
``max_fn(p − one_hot(d))``: p with ``d`` removed and renormalised. The output then has
exactly the target's law, under sampling as well as greedy (where it accepts ``d`` iff
``d`` is the argmax), whatever the storage predicts, as long as the drafts depend only
on what was known before the round.

"Sample ``x`` from p and keep the draft iff ``x == d``" is the same acceptance
test; keeping that very ``x`` after a mismatch is also exact (it is a draw of p
conditioned on ``x != d``, the residual). Drawing a *fresh* ``x'`` from p after a
mismatch is not: ``x'`` can be ``d`` again, so ``d`` comes out with probability
``p(d) + (1 − p(d))·p(d)`` instead of ``p(d)``.
"""
import torch
from transformers import DynamicCache

from solutions.autoregressive import as_list
from solutions.sampling import GreedyProcessor, LogitsProcessor
from solutions.speculative import forward, roll_back, show_round
from solutions.verification import speculative_sampling


class NGramStorage:
    """Which token followed each context of 1 to ``n − 1`` tokens, with counts.

    ``next_token`` backs off from the longest context to shorter ones: a context of
    ``n − 1`` tokens says most about what comes next, a single token least, so the
    longest one the storage has seen decides. Token ids are ints in ``[0, vocab_size)``.
    """

    def __init__(self, n: int, vocab_size: int):
        if n < 2:
            raise ValueError(f"an n-gram storage needs n >= 2 (a context and a token), got {n}")
        self.n, self.vocab_size = n, vocab_size
        # (context of 1 to n − 1 ids) -> {token: count}, tokens in the order first seen
        self.counts: dict[tuple[int, ...], dict[int, int]] = {}

    def initialize(self, ids: list[int]) -> None:
        """Forget everything, then learn every n-gram of ``ids`` (the prompt)."""
        self.counts = {}
        for i in range(1, len(ids)):
            self.update(ids[max(0, i - self.n + 1) : i], [ids[i]])

    def update(self, context: list[int], tokens: list[int]) -> None:
        """Count each of ``tokens`` once as a continuation of every suffix of ``context``
        of 1 to ``n − 1`` tokens (all of them: back-off needs the short ones too)."""
        for length in range(1, min(self.n - 1, len(context)) + 1):
            seen = self.counts.setdefault(tuple(int(t) for t in context[-length:]), {})
            for token in tokens:
                seen[int(token)] = seen.get(int(token), 0) + 1

    def next_token(self, context: list[int]) -> int | None:
        """The most frequent continuation of the longest suffix of ``context`` (at most
        ``n − 1`` tokens) that the storage has seen; ties go to the continuation seen
        first. ``None`` when no suffix, not even the last token alone, was ever seen."""
        for length in range(min(self.n - 1, len(context)), 0, -1):
            seen = self.counts.get(tuple(int(t) for t in context[-length:]))
            if seen:
                return max(seen, key=seen.get)  # max keeps the first of equal counts
        return None


class PromptLookup:
    """Prompt lookup (``prompt_lookup_num_tokens`` in transformers' ``generate``) as a
    storage: it learns the prompt when the loop initialises it and ignores every update,
    so the drafts only ever copy continuations found in the prompt.

    It wraps any storage (``PromptLookup(NGramStorage(3, V))``). transformers' version
    also searches the text generated so far and copies the latest match, where this
    one copies the most frequent continuation; both are exact under verification.
    """

    def __init__(self, storage):
        self.storage = storage

    def initialize(self, ids: list[int]) -> None:
        self.storage.initialize(ids)

    def update(self, context: list[int], tokens: list[int]) -> None:
        """Nothing: the prompt is all this storage ever learns."""

    def next_token(self, context: list[int]) -> int | None:
        return self.storage.next_token(context)


@torch.inference_mode()  # no autograd bookkeeping at all: a few percent faster than no_grad
def ngram_assisted_speculative_generate(
    inputs: list[int],
    ngramstorage: NGramStorage,
    target,
    tokenizer=None,
    gamma: int = 5,
    filler_top_k: int = 3,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    max_gen_len: int = 40,
    eos_tokens_id: int | list[int] = 1,
    pad_token_id: int = 0,
    use_cache: bool = False,
    first_target: bool = True,
    stop_if_unknown: bool = False,
    debug: bool = False,
) -> tuple[list[int], float]:
    """Generate up to ``max_gen_len`` tokens after ``inputs`` (non-empty), drafting with
    ``ngramstorage`` instead of a drafter model.

    Returns ``(ids, acceptance_rate)`` as ``speculative_generate`` does: the generated ids
    (prompt excluded, up to and including the earliest end token) and accepted drafts /
    drafted tokens (0.0 when nothing was drafted).

    - The storage is initialised from the prompt, then every token the text gains is
      counted as the continuation of the text before it.
    - ``filler_top_k``: at every position the target scored and the text kept, the
      storage also counts the target's ``filler_top_k`` highest logits there (0: none),
      before the token itself: repeated contexts learn the target's own preferences.
    - A round drafts ``k = min(gamma, tokens left − 1)`` tokens, each
      ``ngramstorage.next_token(text + drafts so far)``. Where it knows nothing the draft
      is the *filler*: the target's most likely token (highest logit) at the last
      position it scored and the text kept, i.e. at the text's last token when that token
      came from the target. With ``stop_if_unknown``, or before the target scored
      anything (``first_target=False``), drafting stops there instead (k may be 0).
    - One target forward over the text and the k drafts gives the logits ``[k + 1, V]``;
      ``p = logits_processor(logits)`` and the drafts, as point masses
      ``q = one_hot(drafts)`` ``[k, V]``, go through ``speculative_sampling``: draft i is
      accepted with probability ``p_i(d_i)``, a rejection is replaced by a draw from
      ``max_fn(p_i − one_hot(d_i))``, the bonus comes from ``p_k``.
    - ``first_target``: the first round drafts nothing, so the target alone samples the
      first token (and gives the first filler).
    - ``use_cache``: the target keeps a ``DynamicCache``, cropped after each round to the
      text but its last token, which is fed next round with the new drafts.
    - ``pad_token_id`` fills the buffer ``[1, len(inputs) + max_gen_len]``; ``debug``
      prints each round as ``speculative_generate`` does.

    Every draft is a function of the text and of the target's logits at positions already
    verified, never of the round's own random draws: that keeps q a point mass and the
    output law the target's. One host sync per round brings the accepted count, the
    round's token and the top-k ids back, since the storage lives on the host.
    """
    device = target.device
    prompt_len, total_len = len(inputs), len(inputs) + max_gen_len
    ids = torch.full((1, total_len), pad_token_id, dtype=torch.long, device=device)
    ids[0, :prompt_len] = torch.tensor(inputs, dtype=torch.long, device=device)
    text = list(inputs)  # ids[0, :end] on the host, where the storage reads its contexts
    stop_ids = set(as_list(eos_tokens_id))
    cache = DynamicCache() if use_cache else None
    ngramstorage.initialize(text)
    filler, drafted, accepted = None, 0, 0
    fill = min(max(filler_top_k, 0), target.config.vocab_size)
    top_k = max(fill, 1)  # at least the top-1: the filler

    end = prompt_len
    while end < total_len:
        k = 0 if first_target and end == prompt_len else min(gamma, total_len - end - 1)
        drafts = propose(ngramstorage, text, k, None if stop_if_unknown else filler)
        k = len(drafts)
        ids[0, end : end + k] = torch.tensor(drafts, dtype=torch.long, device=device)
        logits = forward(target, ids, end + k, cache, rows=k + 1)  # [k+1, V]
        p = logits_processor(logits)
        # each draft was proposed for sure: q = one_hot(d), so d is accepted with probability p(d)
        point_masses = torch.nn.functional.one_hot(ids[0, end : end + k], p.shape[-1]).to(p.dtype)
        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])
        top = logits.topk(top_k, dim=-1).indices  # [k+1, top_k]
        n, token, *top = torch.cat([rejected_idx.view(1), token.view(1), top.flatten()]).tolist()
        if debug:
            show_round(drafts, n, token, tokenizer)
        drafted, accepted = drafted + k, accepted + n
        ids[0, end + n] = token
        for i, kept in enumerate(drafts[:n] + [token]):
            ngramstorage.update(text, top[i * top_k : i * top_k + fill])
            ngramstorage.update(text, [kept])
            text.append(kept)
            if kept in stop_ids:
                return text[prompt_len:], rate(accepted, drafted)
        filler = top[n * top_k]  # the highest logit at the round's last position
        end += n + 1
        roll_back(cache, end - 1)
    return text[prompt_len:], rate(accepted, drafted)


def propose(storage, text: list[int], k: int, filler: int | None) -> list[int]:
    """Up to ``k`` drafts, each the storage's prediction after the text and the drafts
    before it; ``filler`` where it knows nothing, or stop there when ``filler`` is None."""
    drafts = []
    for _ in range(k):
        token = storage.next_token(text + drafts)
        if token is None:
            token = filler
        if token is None:
            break
        drafts.append(token)
    return drafts


def rate(accepted: int, drafted: int) -> float:
    """Accepted drafts / drafted tokens; 0.0 when nothing was drafted."""
    return accepted / drafted if drafted else 0.0
