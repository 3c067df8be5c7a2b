"""Lessons 1–2 — verifying a block of drafted tokens against the target's distributions.

The drafter proposed ``k`` tokens ``d_0 … d_{k−1}``, ``d_i`` drawn from its distribution
``q_i``; the target scored them all in one forward, which gives ``p_0 … p_k``. The
verifier keeps a prefix of the drafts and adds one token, so that the emitted tokens
follow the target exactly:

- draft ``i`` is accepted with probability ``min(1, p_i(d_i) / q_i(d_i))``;
- at the first rejection, one token is drawn from the residual ``max_fn(p_i − q_i)``
  and the round stops (later drafts were conditioned on a token that is now replaced);
- when all ``k`` are accepted, the bonus token is drawn from ``p_k``: the target's
  forward gave that row for free.

Exercises: ``speculative_decoding_verify`` (numpy, lesson 1); ``speculative_sampling`` and
``greedy_match`` (torch, lesson 2). Run ``grader check <exercise>`` after each.
"""
import numpy as np  # noqa: F401  (speculative_decoding_verify uses numpy)
import torch

from lessons.residual import max_fn  # noqa: F401  (the residual after a rejection)

# Earlier steps this lesson calls, and the exercise that grades each:
#   max_fn (lesson 1: `grader check max_fn`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.residual import max_fn
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.

__all__ = ["speculative_decoding_verify", "speculative_sampling", "greedy_match"]


def speculative_decoding_verify(draft_tokens, draft_probs, target_probs, vocab_size) -> list[int]:
    """The numpy warm-up: verify the ``k`` drafts one at a time, as in the paper.

    draft_tokens ``[k]`` ints; draft_probs ``[k, V]`` (``q``, one row per draft);
    target_probs ``[k+1, V]`` (``p``; the last row is for the bonus token); numpy arrays
    or lists. Returns the emitted token ids as a list of Python ints: the accepted drafts,
    then one more token (a correction from ``norm(max(0, p_i − q_i))`` at the first
    rejection, or the bonus from ``p_k``). So ``1 <= len(result) <= k + 1``.

    Draw from numpy's global generator (``np.random.random``, ``np.random.choice``): the
    grader seeds it. Hint: accept when ``u * q < p`` with ``u = np.random.random()``;
    that is ``u < p / q`` without a division, and a draft with ``p = 0`` is never accepted.
    """
    raise NotImplementedError


def speculative_sampling(target_dists: torch.Tensor, proposal_dists: torch.Tensor,
                         candidate_tokens: torch.Tensor, generator: torch.Generator | None = None):
    """Verify ``k`` drafts at once; returns ``(rejected_idx, resampled_token)``, 0-dim LongTensors.

    target_dists ``[k+1, V]`` (``p``), proposal_dists ``[k, V]`` (``q``), candidate_tokens
    ``[k]`` (the drafts). ``rejected_idx`` is the position of the first rejected draft, or
    ``k`` when all were accepted; ``resampled_token`` is drawn from ``max_fn(p_i − q_i)`` at
    that position, or from ``p_k`` (the bonus) when ``rejected_idx == k``.

    - pass ``generator`` to every random call: the same seed must give the same answer;
    - no Python loop over ``k`` and no ``.item()``: gather ``p_i(d_i)`` and ``q_i(d_i)``,
      draw ``k`` uniforms at once, and find the first rejection with ``argmax`` over a
      boolean mask (with a ``True`` appended for "none");
    - never divide by zero, never accept a draft with ``p = 0``, and never return NaN
      (``max_fn`` of a row where ``p == q`` is all zeros: harmless, it is never chosen).

    Hint: ``torch.cat([max_fn(p[:k] − q), p[k:]])`` stacks the ``k + 1`` distributions the
    last token may come from; ``sample(rows.index_select(0, rejected_idx.view(1))[0], generator)``
    draws it (``rows[rejected_idx]`` works too, but reads the index on the host: a sync).
    """
    raise NotImplementedError


def greedy_match(target_dists: torch.Tensor, candidate_tokens: torch.Tensor):
    """Greedy verification: accept drafts while they equal the target's argmax.

    target_dists ``[k+1, V]``, candidate_tokens ``[k]`` -> ``(rejected_idx, token)``, 0-dim
    LongTensors: the first position ``i`` where ``candidate_tokens[i] != argmax p_i`` (``k``
    if there is none) and ``argmax p_i`` there. This is ``speculative_sampling`` with a
    one-hot ``p``: ``min(1, p(d)/q(d))`` is 1 for the argmax and 0 for every other token.
    On ties, take the first maximal token, as ``argmax`` and ``GreedyProcessor`` do.
    """
    raise NotImplementedError


def sample(probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token from probs ``[V]`` as a 0-dim LongTensor, drawn with ``generator``.

    The exponential race: with ``E_i ~ Exp(1)``, ``argmax(probs_i / E_i)`` is ``i`` with
    probability ``probs_i / Σ probs``, so ``probs`` may be unnormalised, and nothing
    leaves the device (``torch.multinomial`` would do as well).
    """
    race = torch.empty_like(probs).exponential_(1.0, generator=generator)
    return (probs / race).argmax(dim=-1)
