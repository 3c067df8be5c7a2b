"""Lesson 9 — token trees: several drafts per position, verified exactly in one target forward.

A chain of drafts dies at its first rejection. A tree keeps several candidates per
position: the drafter expands it level by level (``branching[d]`` children per node at
depth ``d``, the root being the text's last token), the target scores every node in ONE
forward with a tree attention mask, and a walk from the root accepts at most one child
per level. SpecInfer, Medusa and EAGLE-2 all work this way.

- **Multi-draft verification** (SpecInfer): the ``m`` children of a node are i.i.d. draws
  of the drafter's ``q``. Try them in order: child ``i`` is accepted with probability
  ``min(1, r_i(x_i) / q(x_i))``, where ``r_0 = p`` and after each rejection
  ``r_{i+1} = max_fn(r_i − q)``; when all are rejected, the token comes from ``r_m``.
  Each step is lesson 2's verifier with target ``r_i``, so the emitted token has law
  ``p`` exactly, for any ``m`` (the notebook proves it for m = 2).
- **Tree attention**: node ``i`` must see the text and its own ancestors, nothing else,
  at the position ``len(text) − 1 + depth``; then one forward over text + all nodes gives
  every node the logits a plain forward over its own path would give.
- **Typical acceptance** (Medusa, provided below): accept a candidate whose target
  probability clears an entropy-dependent cut. Faster, and not the target's law.

Nodes are laid out in **level order**: the root's children first, then their children
parent by parent, each node's children next to each other (``tree_parents``, provided).
Row 0 of the target's distributions is the root (the text's last token), row ``1 + i``
node ``i``.

Exercises, in order: ``multi_draft_sampling`` (``grader check multi_draft``),
``tree_layout`` (``grader check tree_attention``), then ``tree_speculative_generate``
with its two steps ``draft_tree`` and ``walk_tree`` (``grader check tree_generate``).
``typical_acceptance``, ``tree_parents``, ``tree_forward`` (the forward with a 4D
attention mask) and ``keep_positions`` (gathering a cache's positions) are provided
complete below the stubs: read them, the loop is built on them.
"""
import torch
from transformers import DynamicCache

# BEGIN SOLUTION
from solutions.autoregressive import as_list
from solutions.residual import max_fn
from solutions.sampling import GreedyProcessor, LogitsProcessor
from solutions.speculative import settle
from solutions.verification import sample
# LESSON
# from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
# from lessons.residual import max_fn  # noqa: F401  (the residual after a rejection)
# from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
# from lessons.speculative import settle  # noqa: F401  (your lesson-3 step: n and the first end token)
# from lessons.verification import sample
#
# # Earlier steps this lesson calls, and the exercise that grades each:
# #   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
# #   max_fn (lesson 1: `grader check max_fn`)
# #   settle (lesson 3's step: `grader check speculative_generate`)
# # Not passed yet? Meanwhile take the reference's, in place of the import above:
# #   from solutions.sampling import GreedyProcessor, LogitsProcessor
# #   from solutions.residual import max_fn
# #   from solutions.speculative import settle
# # `grader check` and `grader grade` both accept it: each exercise is graded on its own
# # functions, and the reference is refused only for the exercise being graded.
# # The checks pass processors of their own, so a loop is graded before lesson 0 is done.
# END SOLUTION

__all__ = ["multi_draft_sampling", "typical_acceptance", "tree_layout", "tree_speculative_generate"]

MEDUSA_THRESHOLD = 0.09  # Medusa's posterior_threshold (epsilon)
MEDUSA_ALPHA = 0.3  # Medusa's posterior_alpha (delta)


def multi_draft_sampling(target_dist: torch.Tensor, proposal_dist: torch.Tensor, drafts: torch.Tensor,
                         generator: torch.Generator | None = None):
    """Verify ``m`` i.i.d. drafts of one position; returns ``(index, token)``, 0-dim LongTensors.

    target_dist ``[V]`` (p), proposal_dist ``[V]`` (q), drafts ``[m]``, each drawn from q
    independently of the others. Try the drafts in their order: draft ``i`` is accepted
    with probability ``min(1, r_i(x_i) / q(x_i))`` against the residuals ``r_0 = p``,
    ``r_{i+1} = max_fn(r_i − q)``. ``index`` is the first accepted draft and ``token ==
    drafts[index]``; ``index == m`` means every draft was rejected, and ``token`` is then
    drawn from ``r_m``.

    - pass ``generator`` to every random call: the same seed must give the same answer;
    - never accept a draft with ``p = 0``, never divide by zero, never return NaN;
    - the residuals do not depend on the random draws: compute all ``m + 1`` of them first
      (a short Python loop over m is fine), then ``m`` uniforms at once, and find the first
      acceptance with ``argmax`` over a boolean mask with a ``True`` appended for "none".

    Hint: accept iff ``u_i · q(x_i) < r_i(x_i)`` (no division); stack the candidates
    ``torch.cat([drafts, sample(r_m).view(1)])`` and pick one with ``index_select``.
    """
    # BEGIN SOLUTION
    m = drafts.shape[0]
    residuals = [target_dist]
    for _ in range(m):
        residuals.append(max_fn(residuals[-1] - proposal_dist))
    r = torch.stack(residuals)  # [m + 1, V]
    q = proposal_dist.gather(0, drafts)  # [m]
    r_at = r[:m].gather(1, drafts.unsqueeze(1)).squeeze(1)  # [m]: r_i(x_i)
    u = torch.rand(m, generator=generator, dtype=q.dtype, device=q.device)
    accepted = u * q < r_at
    # the first acceptance, m if none: argmax finds the first maximum
    index = torch.cat([accepted, accepted.new_ones(1)]).to(torch.uint8).argmax()
    candidates = torch.cat([drafts, sample(r[m], generator).view(1)])
    return index, candidates.index_select(0, index.view(1))[0]
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def typical_acceptance(target_dist: torch.Tensor, proposal_dist: torch.Tensor, drafts: torch.Tensor,
                       generator: torch.Generator | None = None, threshold: float = MEDUSA_THRESHOLD,
                       alpha: float = MEDUSA_ALPHA):
    """Medusa's typical acceptance, with ``multi_draft_sampling``'s contract: NOT exact.

    A draft is accepted iff ``p(x) > min(threshold, alpha · exp(−H(p)))``, ``H`` the
    entropy of p; the first accepted one is kept. When none is, the token is drawn from
    p restricted to that typical set (the tokens at or above the cut). q is ignored: the
    drafter's own probabilities play no part, which is why the output drifts towards the
    drafter's favourite tokens. Shapes as in ``multi_draft_sampling``.
    """
    cut = torch.clamp(alpha * torch.exp(-torch.special.entr(target_dist).sum()), max=threshold)
    accepted = target_dist.gather(0, drafts) > cut
    index = torch.cat([accepted, accepted.new_ones(1)]).to(torch.uint8).argmax()
    typical = torch.where(target_dist >= cut, target_dist, torch.zeros_like(target_dist))
    candidates = torch.cat([drafts, sample(typical, generator).view(1)])
    return index, candidates.index_select(0, index.view(1))[0]


def tree_layout(parents: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """The tree attention mask and the depths of ``N`` nodes in topological order.

    ``parents[i]`` is the index of node ``i``'s parent (always ``< i``), or ``-1`` for a
    child of the root (the last token of the text). Returns, on the CPU:

    - ``mask [N, N]`` bool: ``mask[i, j]`` iff ``j == i`` or ``j`` is an ancestor of ``i``
      (siblings, cousins and other branches stay invisible);
    - ``depths [N]`` long: 1 for a child of the root, its parent's depth + 1 otherwise;
      node ``i`` goes at position ``len(text) − 1 + depths[i]``.

    Example: ``parents = [-1, -1, 0]`` gives depths ``[1, 1, 2]`` and the mask rows
    ``[1, 0, 0]``, ``[0, 1, 0]``, ``[1, 0, 1]``. Hint: a parent comes before its child, so
    row ``i`` is row ``parents[i]`` plus ``i`` itself.
    """
    # BEGIN SOLUTION
    count = len(parents)
    mask = torch.eye(count, dtype=torch.bool)
    depths = torch.ones(count, dtype=torch.long)
    for i, parent in enumerate(parents):
        if parent >= 0:  # a parent comes first, so its row is complete: inherit it
            mask[i] |= mask[parent]
            depths[i] = depths[parent] + 1
    return mask, depths
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def tree_parents(branching: tuple[int, ...]) -> list[int]:
    """The parents of the full tree of ``branching``, in level order.

    ``branching[d]`` children per node at depth ``d`` (the root at depth 0); the children
    of a node are consecutive. ``(2, 2)`` gives ``[-1, -1, 0, 0, 1, 1]``.
    """
    parents, level = [], [-1]
    for width in branching:
        children = []
        for node in level:
            children += range(len(parents), len(parents) + width)
            parents += [node] * width
        level = children
    return parents


@torch.inference_mode()
def tree_speculative_generate(
    inputs: list[int],
    drafter,
    target,
    branching: tuple[int, ...] = (2, 2, 1),
    logits_processor: LogitsProcessor = GreedyProcessor(),
    max_gen_len: int = 40,
    eos_tokens_id: int | list[int] = 1,
    use_cache: bool = False,
) -> tuple[list[int], float]:
    """Speculative decoding with a token tree per round; returns ``(ids, mean_accepted)``.

    ``ids``: the generated ids (prompt excluded) as a list of Python ints, stopping right
    after the earliest token of ``eos_tokens_id`` (an int or a list), never more than
    ``max_gen_len``. ``mean_accepted``: the nodes accepted per round, a float (a round is
    one target forward), so without an end token ``len(ids) == rounds · (1 + mean_accepted)``.

    The contract, point by point (the grader checks each one):

    - A round, ``end`` tokens so far (the prompt included): the tree has depth
      ``k = min(len(branching), tokens still allowed − 1)`` (the round's own token must
      fit) and the ``N`` nodes of ``tree_parents(branching[:k])``, in level order. There
      is no prefill: the first round's root is the prompt's last token.
    - ``draft_tree`` writes the nodes into the sequence buffer after the text, one drafter
      forward per level, and returns the drafter's q of every node that has children.
    - ONE target forward over the text and all nodes (``tree_forward``, with the mask and
      depths of ``tree_layout``) gives p ``[N + 1, V]``: row 0 the root, row ``1 + i``
      node ``i``, processed like q.
    - ``walk_tree`` accepts a path of ``n ≤ k`` nodes; the round emits them and one token
      of the target's own. Read ``n`` and the first end token on the host once (``settle``).
    - Under sampling a node's children are i.i.d. draws of its q; under greedy decoding (a
      processor whose ``is_greedy`` is True) its top distinct tokens (i.i.d. draws of a one-hot q would all
      be the same token). Greedy needs no other special case: with one-hot p,
      ``multi_draft_sampling`` accepts exactly the child equal to the target's argmax.

    ``use_cache=True``: one ``DynamicCache`` per model, created once; every forward feeds
    only the tokens that model's cache lacks (``tree_forward`` does it). After a round,
    unless generation is over, each cache must hold the old text and then the accepted
    path only: the path's nodes are scattered among rejected branches (row ``x`` of the
    tree sits at cache position ``end − 1 + x``), so crop cannot do it; ``keep_positions``
    gathers them. The drafter never ran its leaves, so its cache holds only the path's
    first ``min(n, k − 1)`` nodes.

    Hint: allocate ``ids [1, len(inputs) + max_gen_len + N]`` (room for a whole tree past
    the last slot), and after the walk write the emitted tokens over the nodes at
    ``ids[0, end:end + k + 1]``.
    """
    # BEGIN SOLUTION
    device = target.device
    mask, depths = (t.to(device) for t in tree_layout(tree_parents(branching)))
    sizes = [len(tree_parents(branching[:d])) for d in range(len(branching) + 1)]  # nodes in d levels
    prompt_len, total_len = len(inputs), len(inputs) + max_gen_len
    # the sequence buffer, with room for a whole tree past its last slot
    ids = torch.zeros((1, total_len + sizes[-1]), dtype=torch.long, device=device)
    ids[0, :prompt_len] = torch.tensor(inputs, dtype=torch.long, device=device)
    stop_ids = torch.tensor(as_list(eos_tokens_id), dtype=torch.long, device=device)
    drafter_cache = DynamicCache() if use_cache else None
    target_cache = DynamicCache() if use_cache else None
    end, rounds, accepted = prompt_len, 0, 0

    while end < total_len:
        k = min(len(branching), total_len - end - 1)
        count = sizes[k]
        q = draft_tree(drafter, ids, end, branching[:k], mask, depths, logits_processor, drafter_cache)
        p = logits_processor(tree_forward(target, ids[:, : end + count], end, mask[:count, :count],
                                          depths[:count], target_cache, rows=count + 1))  # [N + 1, V]
        tokens, n, path = walk_tree(p, q, ids[0, end : end + count], branching[:k])
        ids[0, end : end + k + 1] = tokens  # the accepted path, then the target's token
        n, first_stop = settle(ids[0, end : end + k + 1], n, stop_ids)
        rounds, accepted = rounds + 1, accepted + n
        if first_stop <= n or end + n + 1 >= total_len:  # done: no cache to tidy
            end += min(n, first_stop) + 1
            break
        # row x of the tree sits at cache position end − 1 + x; the drafter never saw the leaves
        kept = torch.arange(end, device=device)
        keep_positions(target_cache, torch.cat([kept, end - 1 + path[:n]]))
        keep_positions(drafter_cache, torch.cat([kept, end - 1 + path[: min(n, k - 1)]]))
        end += n + 1
    return ids[0, prompt_len:end].tolist(), accepted / rounds if rounds else 0.0
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def draft_tree(drafter, ids: torch.Tensor, end: int, branching: tuple[int, ...], mask: torch.Tensor,
               depths: torch.Tensor, processor, cache: DynamicCache | None) -> list[torch.Tensor]:
    """Expand the tree level by level into ``ids[0, end:end + N]``; returns q per level.

    ids ``[1, L]`` holds the text in ``ids[0, :end]``; mask and depths are those of the
    full tree (slice them: the first ``n`` nodes' layout is ``mask[:n, :n]``,
    ``depths[:n]``). Level ``d`` has ``W_d`` nodes (the root alone at ``d = 0``): ONE
    drafter forward over the text and the nodes drafted so far (``tree_forward``, its last
    ``W_d`` rows) gives their q ``[W_d, V]``, and each of them gets ``branching[d]``
    children, written after the nodes so far: i.i.d. draws of its q
    (``torch.multinomial(q, b, replacement=True)``), or under greedy (``processor.is_greedy``)
    its top ``b`` tokens (``logits.topk``). Returns ``[q_0 [W_0, V], q_1 [W_1, V], …]``, one per level.
    """
    # BEGIN SOLUTION
    rows, drafted, width = [], 0, 1
    for children in branching:
        logits = tree_forward(drafter, ids[:, : end + drafted], end, mask[:drafted, :drafted],
                              depths[:drafted], cache, rows=width)
        q = processor(logits)  # [width, V]
        if processor.is_greedy:
            chosen = logits.topk(children, dim=-1).indices
        else:
            chosen = torch.multinomial(q, children, replacement=True)
        ids[0, end + drafted : end + drafted + width * children] = chosen.flatten()
        rows.append(q)
        drafted, width = drafted + width * children, width * children
    return rows
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def walk_tree(p: torch.Tensor, q: list[torch.Tensor], nodes: torch.Tensor, branching: tuple[int, ...]):
    """Walk from the root, accepting at most one child per level, without a host sync.

    p ``[N + 1, V]`` (row 0 the root, row ``1 + i`` node ``i``); q as ``draft_tree``
    returns it; nodes ``[N]`` the tree's tokens in level order. In level order the node at
    row ``r`` of level ``d`` (level ``d``'s first row ``F_d``: ``F_0 = 0``, ``F_1 = 1`` and
    ``F_{d+1} = F_d + W_d`` with ``W_0 = 1``, ``W_{d+1} = W_d · branching[d]`` the width of
    each level) has its children at rows ``F_{d+1} + (r − F_d) · branching[d] + j``.

    At each level ``multi_draft_sampling(p[r], q[d][r − F_d], tokens of r's children)``
    decides: descend into the accepted child, or stop with the token it drew. After the
    deepest level, the bonus is drawn from p of the last accepted node.

    Returns ``(tokens [k + 1], n, path [k])``: the token emitted at each depth (only the
    first ``n + 1`` count), ``n`` the number of accepted nodes as a 0-dim tensor, and the
    rows of the accepted path (the first ``n`` count). Keep every index a tensor
    (``torch.where``, ``index_select``) and go on computing the levels after a stop from
    any valid node: their draws never reach the output, and no branch reads the host.
    """
    # BEGIN SOLUTION
    row = torch.zeros((), dtype=torch.long, device=p.device)  # the root
    alive = torch.ones((), dtype=torch.bool, device=p.device)
    n = torch.zeros((), dtype=torch.long, device=p.device)
    tokens, path, first, width = [], [], 0, 1  # first: row of the level's first node
    for d, children in enumerate(branching):
        here = torch.where(alive, row, torch.full_like(row, first))  # a stopped walk reads any node
        rows = first + width + (here - first) * children + torch.arange(children, device=p.device)
        index, token = multi_draft_sampling(p.index_select(0, here.view(1))[0],
                                            q[d].index_select(0, (here - first).view(1))[0],
                                            nodes.index_select(0, rows - 1))
        alive = alive & (index < children)
        row = torch.where(alive, rows.index_select(0, index.clamp(max=children - 1).view(1))[0], row)
        tokens.append(token)
        path.append(row)
        n = n + alive
        first, width = first + width, width * children
    tokens.append(sample(p.index_select(0, row.view(1))[0]))  # the bonus, kept only if n == k
    empty = torch.zeros(0, dtype=torch.long, device=p.device)
    return torch.stack(tokens), n, torch.stack(path) if path else empty
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def tree_forward(model, ids: torch.Tensor, text_len: int, mask: torch.Tensor, depths: torch.Tensor,
                 cache: DynamicCache | None, rows: int) -> torch.Tensor:
    """The logits ``[rows, V]`` of the last ``rows`` positions of ``ids`` = text then tree.

    ids ``[1, T + N]``: the text ``ids[:, :T]`` (``T = text_len``) then ``N`` tree nodes with
    their ``mask [N, N]`` and ``depths [N]`` (``tree_layout``). Text tokens see the text
    before them; node ``i`` sees the whole text and its ancestors, at position
    ``T − 1 + depths[i]``, so its logits are those of a plain forward over its own path.
    With a cache only ``ids[:, seen:]`` goes in, ``seen = cache.get_seq_length()``, the
    cache holding the first ``seen`` of those tokens.
    """
    seen = cache.get_seq_length() if cache is not None else 0
    attention_mask, position_ids = tree_attention(text_len, mask, depths, seen, model.dtype)
    out = model(ids[:, seen:], attention_mask=attention_mask, position_ids=position_ids,
                cache=cache, use_cache=cache is not None)
    return out.logits[0, -rows:]


def tree_attention(text_len: int, mask: torch.Tensor, depths: torch.Tensor, seen: int,
                   dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """``(attention_mask [1, 1, T + N − seen, T + N], position_ids [1, T + N − seen])`` for a
    forward over a text of ``T = text_len`` tokens then ``N`` tree nodes (``mask``, ``depths``
    from ``tree_layout``), feeding all but the first ``seen``, which a cache holds: the text
    is causal, node ``i`` sees the text and its ancestors at position ``T − 1 + depths[i]``."""
    length = text_len + mask.shape[0]
    allowed = torch.ones(length, length, dtype=torch.bool, device=mask.device).tril()
    allowed[text_len:, text_len:] = mask
    positions = torch.cat([torch.arange(text_len, device=mask.device), text_len - 1 + depths])
    return attention_bias(allowed[seen:], dtype), positions[None, seen:]


def attention_bias(allowed: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The additive attention mask ``[1, 1, Q, S]`` a transformers model takes for ``allowed``
    ``[Q, S]`` bool (query ``i`` may attend to key ``j``): 0 where it may, the dtype's
    minimum where it may not. Passed as ``attention_mask``, it replaces the causal mask."""
    bias = torch.zeros(allowed.shape, dtype=dtype, device=allowed.device)
    return bias.masked_fill_(~allowed, torch.finfo(dtype).min)[None, None]


def keep_positions(cache: DynamicCache | None, positions: torch.Tensor) -> None:
    """Keep only the cached keys and values at ``positions`` ``[K]``, in that order.

    A ``DynamicCache`` can only crop its end; a tree's accepted path is scattered among
    rejected branches, so each layer's keys and values ``[B, heads, S, head_dim]`` are
    gathered along S. The path's entries were computed at their depth's position and saw
    only their ancestors, so they are exactly what a plain forward over the path gives.
    """
    if cache is None:
        return
    for layer in cache.layers:
        layer.keys = layer.keys.index_select(-2, positions)
        layer.values = layer.values.index_select(-2, positions)
