"""Lesson 8 — speculative decoding for a batch: every row accepts a different number of drafts.

One drafter forward per draft position and one target forward per round serve the whole
batch, but row ``b`` accepts its own ``n_b`` drafts. The rows stay aligned in the caches
by never moving anything:

- **Left padding.** Prompts of different lengths are padded on the left, so every row's
  last token sits in the last column and one slice of the logits serves all rows.
- **Holes, not compaction.** Each model keeps an attention mask over its cache's columns
  (1: a real token of that row, 0: padding or a hole). A rejected draft's column stays in
  the cache, masked out for every later query, instead of being cropped (which could only
  cut the same number of columns from every row). Columns that are holes in every row are
  cropped, so a batch of one behaves exactly like ``speculative_generate``.
- **Positions from the mask.** A token's position is the number of real tokens before it
  in its own row (``cumsum`` of the mask), so padding and holes never shift a row's
  positions: each row sees exactly what it would see alone.
- **Finished rows ride along, masked.** A row that reached its end token or
  ``max_gen_len`` keeps its place; its new columns are holes. Dropping it from the batch
  would save its compute, at the cost of re-indexing every cache.

Each row's output has exactly the law of sampling from the target alone given its own
prompt: rows share forwards, never random numbers or distributions.

Exercises, in order: ``batched_speculative_sampling`` (``grader check batched_verify``),
then ``Lane.feed``, ``Lane.reject`` and ``batched_speculative_generate`` (``grader check
batched_generate``). ``left_padded`` and ``draft`` are provided complete below the stubs.
"""
import torch
from transformers import DynamicCache

from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
from lessons.residual import max_fn  # noqa: F401  (the residual after a rejection)
from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
from lessons.verification import sample  # noqa: F401  (one token per row, no host sync)

# Earlier steps this lesson calls, and the exercise that grades each:
#   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
#   max_fn (lesson 1: `grader check max_fn`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.sampling import GreedyProcessor, LogitsProcessor
#   from solutions.residual import max_fn
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.
# The checks pass processors of their own, so a loop is graded before lesson 0 is done.

__all__ = ["batched_speculative_sampling", "batched_speculative_generate"]


def batched_speculative_sampling(target_dists: torch.Tensor, proposal_dists: torch.Tensor,
                                 candidate_tokens: torch.Tensor, generator: torch.Generator | None = None):
    """Verify ``k`` drafts in each of ``B`` rows at once; returns ``(rejected_idx [B], tokens [B])``.

    target_dists ``[B, k+1, V]`` (p), proposal_dists ``[B, k, V]`` (q), candidate_tokens
    ``[B, k]``. Row ``b`` is verified as ``speculative_sampling`` verifies one block, with
    its own uniforms: draft ``i`` is accepted iff ``u · q < p``; ``rejected_idx[b]`` is the
    row's first rejection (``k`` if none) and ``tokens[b]`` comes from that row's residual
    ``max_fn(p_i − q_i)`` there, or from ``p_k`` (the bonus). Both are LongTensors on the
    inputs' device; no Python loop over rows or drafts, no host sync.

    Hint: lesson 2's verifier with one more leading dim. ``gather`` the drafts' p and q
    (``[B, k]``), one uniform per (row, draft), the first rejection per row by ``argmax``
    over ``[rejected | True]`` (a uint8 tensor), then each row's candidate distribution
    (residual rows ``[B, k, V]`` and the bonus row) picked with ``gather`` along dim 1.
    """
    raise NotImplementedError


class Lane:
    """One model's view of the batch: its cache, and which cache columns hold real tokens.

    ``mask`` ``[B, columns]``: 1 where column ``c`` of row ``b`` is a real token, 0 for left
    padding and holes (rejected drafts, finished rows). Without a cache every forward
    feeds all the columns again (``ids`` keeps them); with one, only the new ones.
    """

    def __init__(self, model, batch_size: int, use_cache: bool):
        self.model = model
        self.cache = DynamicCache() if use_cache else None
        self.ids = torch.zeros((batch_size, 0), dtype=torch.long, device=model.device)
        self.mask = torch.zeros((batch_size, 0), dtype=torch.long, device=model.device)

    def feed(self, tokens: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """Append columns ``tokens`` ``[B, w]`` (``valid`` ``[B, w]``: 1 real, 0 hole) and
        return the model's logits for them, ``[B, w, V]``.

        Steps: append ``tokens`` to ``self.ids`` and ``valid`` to ``self.mask``; a column's
        position is the number of real tokens before it in its row, ``cumsum(mask) − 1``
        (clamped at 0 for the padding); call the model with ``attention_mask=self.mask``
        (every column, cached or not), ``position_ids`` and input ids of the columns it has
        not seen (only the new ones with a cache, all of them without), ``cache=self.cache``
        and ``use_cache=self.cache is not None``; return the logits of the new columns.
        """
        raise NotImplementedError

    def reject(self, drafts: int, kept: torch.Tensor, most_kept: int) -> None:
        """Of the last ``drafts`` columns, row ``b`` keeps its first ``kept[b]``; the rest
        become holes. ``most_kept`` (``max(kept)`` over rows still running, a host int)
        says how many trailing columns are holes in every row: those are cropped.

        Steps (nothing to do when ``drafts == 0``): multiply the last ``drafts`` columns of
        ``self.mask`` by ``arange(drafts) < kept[:, None]``; then drop the last
        ``drafts − most_kept`` columns of ``ids`` and ``mask``, and ``cache.crop(-that)``.
        """
        raise NotImplementedError


def left_padded(rows: list[list[int]], running: list[bool], pad_token_id: int, device):
    """``(tokens [B, w], valid [B, w])``: each running row's tokens right-aligned, holes
    (``pad_token_id``, valid 0) on the left; a finished row is all holes."""
    width = max(len(r) for r, run in zip(rows, running) if run)
    tokens = [[pad_token_id] * (width - len(r)) + r if run else [pad_token_id] * width
              for r, run in zip(rows, running)]
    valid = [[0] * (width - len(r)) + [1] * len(r) if run else [0] * width
             for r, run in zip(rows, running)]
    return (torch.tensor(tokens, dtype=torch.long, device=device),
            torch.tensor(valid, dtype=torch.long, device=device))


@torch.inference_mode()
def batched_speculative_generate(
    prompts: list[list[int]],
    drafter,
    target,
    gamma: int = 5,
    logits_processor: LogitsProcessor = GreedyProcessor(),
    max_gen_len: int = 40,
    eos_tokens_id: int | list[int] = 1,
    pad_token_id: int = 0,
    use_cache: bool = True,
) -> tuple[list[list[int]], list[float]]:
    """Speculative decoding for ``B`` prompts of any lengths at once.

    Returns ``(outputs, rates)``: row ``b``'s generated ids (prompt excluded; they stop
    right after the earliest end token of ``eos_tokens_id`` or at ``max_gen_len``) and its
    acceptance rate (accepted / drafted, 0.0 when it drafted nothing). Each row's output
    has the law of sampling from the target alone given its own prompt, whatever the other
    rows are. The target samples each row's first token (one prefill forward); then each
    round is one drafter forward per draft position and one target forward, for the
    whole batch; a round syncs with the host once.

    ``k = min(gamma, most tokens any running row still needs − 1)`` drafts per round; a
    row with less room counts only the drafts that fit (``min(k, room − 1)``) and keeps
    only the tokens that fit, which are a prefix of a valid round's output, so its law is
    unchanged. ``pad_token_id`` fills left padding and holes; it never reaches the output.

    Steps. Keep per row, as Python lists: the output, drafted and accepted counts, whether
    it is still running, and what each model has not been fed yet (``target_pending``,
    ``drafter_pending``, both the prompt at first). One ``Lane`` per model.

    1. Prefill: ``target_lane.feed(*left_padded(target_pending, running, …))``; sample
       each row's first token from the last column's logits (``.tolist()``: one sync).
       It becomes the target's pending token and is appended to the drafter's pending.
    2. A round: ``room[b] = max_gen_len − len(output)``, ``k`` as above, ``live`` the
       running flags as a ``[B, 1]`` LongTensor. ``draft(drafter_lane, drafter_pending,
       …)`` gives drafts ``[B, k]`` and q rows; the target is fed its pending tokens (left
       padded) followed by the drafts (valid where the row is live) in ONE forward; p is
       the processed logits of the last ``k + 1`` columns; q is the stacked rows (``p[:,
       :0]`` when ``k == 0``). ``batched_speculative_sampling(p, q, drafts)``.
    3. One ``.tolist()`` of ``[rejected_idx, token, drafts]`` per row. ``reject`` on the
       target lane (the ``k`` draft columns, ``most_kept`` = the largest rejected_idx over
       the running rows) and on the drafter lane (``max(k − 1, 0)`` columns: the drafter
       never fed its last draft, and at ``k = 0`` nothing; its ``most_kept`` clamped to
       that count, since a row that accepted all k kept only k − 1 of the drafter's).
    4. Per running row: emitted = accepted drafts + the token, cut to ``room`` and after
       the first end token; update the counts (``min(k, room − 1)`` drafted,
       ``min(n, room − 1)`` accepted) and the running flag. The target's pending is the
       token; the drafter's is the token, preceded by the last draft when all ``k`` were
       accepted (and by its old pending when ``k == 0``: it was not fed this round).
    """
    raise NotImplementedError


def draft(lane: Lane, pending: list[list[int]], running: list[bool], k: int, processor,
          pad_token_id: int, live: torch.Tensor):
    """Sample ``k`` drafts for every row: ``drafts`` ``[B, k]`` and their distributions q,
    k × ``[B, V]``.

    The first forward feeds each row's pending tokens (left-padded), every later one the
    previous draft; finished rows (``live`` ``[B, 1]`` is 0) are fed holes.
    """
    drafts = torch.zeros((len(pending), 0), dtype=torch.long, device=live.device)
    rows = []
    for i in range(k):
        columns = (left_padded(pending, running, pad_token_id, live.device) if i == 0
                   else (drafts[:, -1:], live))
        q = processor(lane.feed(*columns)[:, -1])  # [B, V]
        drafts = torch.cat([drafts, processor.sample(q).unsqueeze(1)], dim=1)
        rows.append(q)
    return drafts, rows
