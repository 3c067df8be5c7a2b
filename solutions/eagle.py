"""Lesson 11 — draft from the target's own features (EAGLE), verify deterministic drafts exactly.

The target's top hidden state at position ``t``, its **feature** ``f_t`` ``[d]``, is what
its LM head reads to score the next token: it already holds most of what the drafter has
to guess. EAGLE's drafter is a **feature head**: one decoder layer that reads the pair
``[f_t ; embedding of x_{t+1}]`` (fused to width ``d`` by a linear layer) and predicts the
next feature ``f̂_{t+1}``; the target's own LM head turns it into the draft distribution
``q``. It borrows the target's embedding and LM head, so it costs one layer of the
target's width, and it sees everything the target computed so far.

- ``feature_draft_step``: one forward of the head over a run of pairs, with its own cache.
- ``eagle_loss``: how it is trained (EAGLE-1): regress the target's next feature, and
  match the target's next-token distribution through the LM head.
- ``unrolled_eagle_loss``: EAGLE-3's training-time test. From a round's second draft on,
  the head reads its own predicted features, never seen in EAGLE-1's training: unroll it
  over a few steps, each fed the step before's predictions, and train on every step.
- ``eagle_generate``: the chain loop. ONE target forward per round verifies the drafts
  (lesson 2's verifier: the drafts are samples of q) and also yields the true features of
  the accepted positions, which the head reads at the start of the next round; drafts made
  from predicted features are rolled back out of the head's cache.
- ``verify_deterministic_children``: EAGLE-2 grows a tree whose children are the head's
  top-k tokens, chosen, not sampled. Verified as if they were samples of q they break the
  target's law; verified as point masses, one after the other, they keep it exactly.
- ``grow_tree``: EAGLE-2's dynamic tree. Level by level, the head expands its ``top_k`` most
  confident nodes (confidence: the product of the head's probabilities along the path),
  each into its ``top_k`` likeliest tokens; then the ``total`` most confident nodes are kept.
  The tree's shape follows the head's confidence, text by text.
- ``eagle_tree_generate``: the tree loop. ONE target forward over the whole tree (lesson 9's
  tree attention) verifies it, walking from the root with ``verify_deterministic_children``
  (``walk_deterministic_tree``), and yields the true features of the accepted path.

Exercises, in order: ``verify_deterministic_children`` (``grader check
deterministic_children``), then ``feature_draft_step``, ``eagle_loss``,
``unrolled_eagle_loss`` (``grader check unrolled_loss``, EAGLE-3's training) and
``eagle_generate``, then ``grow_tree`` (``grader check dynamic_tree``) and
``eagle_tree_generate`` with its step ``walk_deterministic_tree``, all used in notebook 11
(``grader.models.load_feature_head`` loads the shipped pair's head).
``FeatureHead`` (the module) and ``target_step``
(a target forward that keeps the features) are provided complete below the stubs.

Shapes: ``d`` the target's hidden size, ``V`` its vocabulary; ``features`` ``[1, n, d]`` are
transformers' last hidden state (taken after the target's final norm: exactly what the LM
head reads).
"""
import copy
import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import AutoModel, DynamicCache

from grader.models import SHIPPED_FEATURE_HEAD

# BEGIN SOLUTION
from solutions.autoregressive import as_list
from solutions.residual import max_fn
from solutions.sampling import GreedyProcessor, LogitsProcessor
from solutions.speculative import roll_back, settle
from solutions.trees import attention_bias, keep_positions, tree_attention, tree_layout
from solutions.verification import sample, speculative_sampling
# LESSON
# from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
# from lessons.residual import max_fn  # noqa: F401  (norm(max(0, x)))
# from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
# from lessons.speculative import roll_back, settle  # noqa: F401  (your lesson-3 steps)
# from lessons.trees import attention_bias, keep_positions, tree_attention  # lesson 9's provided tree forward parts
# from lessons.trees import tree_layout  # noqa: F401  (your lesson-9 mask and depths)
# from lessons.verification import sample, speculative_sampling  # noqa: F401  (lesson 2)
#
# # Earlier steps this lesson calls, and the exercise that grades each:
# #   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
# #   max_fn (lesson 1: `grader check max_fn`)
# #   sample, speculative_sampling (lesson 2: `grader check speculative_sampling`)
# #   settle, roll_back (lesson 3's steps: `grader check speculative_generate`)
# #   tree_layout (lesson 9: `grader check tree_attention`)
# # Not passed yet? Meanwhile take the reference's, in place of the import above:
# #   from solutions.sampling import GreedyProcessor, LogitsProcessor
# #   from solutions.residual import max_fn
# #   from solutions.verification import sample, speculative_sampling
# #   from solutions.speculative import roll_back, settle
# #   from solutions.trees import tree_layout
# # `grader check` and `grader grade` both accept it: each exercise is graded on its own
# # functions, and the reference is refused only for the exercise being graded.
# # The checks pass processors of their own, so a loop is graded before lesson 0 is done.
# END SOLUTION

__all__ = ["verify_deterministic_children", "feature_draft_step", "eagle_loss", "unrolled_eagle_loss",
           "eagle_generate", "grow_tree", "eagle_tree_generate", "FeatureHead", "load_feature_head"]


def verify_deterministic_children(target_dist: torch.Tensor, children: torch.Tensor,
                                  generator: torch.Generator | None = None):
    """Verify ``m`` distinct children chosen deterministically (the head's top-k tokens):
    returns ``(index, token)``, 0-dim LongTensors.

    target_dist ``[V]`` (p), children ``[m]`` distinct token ids. A chosen child is a point
    mass, not a sample of q, so lesson 9's ``min(1, r/q)`` does not apply. Try the children
    in their order against ``r_0 = p``: child ``i`` is accepted with probability
    ``r_i(c_i)``; after its rejection ``r_{i+1}`` is ``r_i`` with ``c_i`` removed (set to 0)
    and renormalised. ``index`` is the first accepted child and ``token == children[index]``;
    ``index == m`` means all were rejected, and ``token`` is then drawn from ``r_m``. The
    token has law p exactly: each step is lesson 2's verifier with a one-hot q.

    - pass ``generator`` to every random call: the same seed must give the same answer;
    - a child with ``p = 0`` is never accepted; never divide by zero, never return NaN;
    - the residuals do not depend on the draws: in masses, ``r_i(c_i) = p(c_i) / S_i`` with
      ``S_i = 1 − p(c_0) − … − p(c_{i−1})``; draw ``m`` uniforms at once.

    Hint: accept iff ``u_i · S_i < p(c_i)`` (no division); ``r_m`` is
    ``max_fn(p with the children zeroed)``; find the first acceptance with ``argmax`` over a
    boolean mask with a ``True`` appended for "none".
    """
    # BEGIN SOLUTION
    m = children.shape[0]
    mass = target_dist.gather(0, children)  # [m]: p(c_i)
    left = target_dist.sum() - torch.cumsum(mass, 0) + mass  # [m]: S_i, the mass not yet removed
    u = torch.rand(m, generator=generator, dtype=mass.dtype, device=mass.device)
    accepted = u * left < mass
    index = torch.cat([accepted, accepted.new_ones(1)]).to(torch.uint8).argmax()  # the first True
    rest = max_fn(target_dist.index_fill(0, children, 0.0))  # r_m: p without the children
    candidates = torch.cat([children, sample(rest, generator).view(1)])
    return index, candidates.index_select(0, index.view(1))[0]
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def feature_draft_step(head: "FeatureHead", features: torch.Tensor, tokens: torch.Tensor,
                       cache: DynamicCache | None, attention_mask: torch.Tensor | None = None,
                       position_ids: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """One forward of the feature head over ``n`` pairs; returns ``(next_features, logits)``.

    features ``[B, n, d]`` (``f_t`` for ``n`` consecutive positions; ``B = 1`` in the loops,
    a batch of rows in training), tokens ``[B, n]`` (the token after each: ``x_{t+1}``). Pair
    ``j`` is ``[features[:, j] ; embedding of tokens[:, j]]`` ``[2d]``, the feature first, fused
    by ``head.fc`` to ``[d]``; ``head.decoder`` (its decoder layers, called with
    ``inputs_embeds=`` and the head's own ``cache``) predicts the next features ``[B, n, d]``;
    the target's LM head (``head.lm_head``) gives their logits ``[B, n, V]``: row ``j`` scores
    the token after ``tokens[:, j]``.

    The step feeds all ``n`` pairs it is given: with a cache, its callers pass only the pairs
    the head has not read yet. The cache's length is the number of pairs it holds, and tells
    the decoder their positions. ``attention_mask``
    ``[1, 1, n, S]`` and ``position_ids`` ``[1, n]`` (``grow_tree``'s, from lesson 9's
    ``tree_attention``) go to the decoder as they are; ``None`` leaves it causal.
    """
    # BEGIN SOLUTION
    pairs = torch.cat([features, head.embed(tokens)], dim=-1)  # [1, n, 2d]
    out = head.decoder(inputs_embeds=head.fc(pairs), attention_mask=attention_mask, position_ids=position_ids,
                       cache=cache, use_cache=cache is not None)
    predicted = out.last_hidden_state
    return predicted, head.lm_head(predicted)
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def eagle_loss(predicted: torch.Tensor, features: torch.Tensor, head_logits: torch.Tensor,
               target_logits: torch.Tensor, feature_weight: float = 1.0,
               token_weight: float = 1.0) -> torch.Tensor:
    """EAGLE's training loss, a 0-dim tensor: ``feature_weight · L_feature + token_weight · L_token``.

    predicted ``[B, T, d]`` the head's features, features ``[B, T, d]`` the target's at the
    same positions; head_logits ``[B, T, V]`` (the LM head on ``predicted``), target_logits
    ``[B, T, V]`` (the LM head on ``features``).

    - ``L_feature``: smooth L1 (``torch.nn.functional.smooth_l1_loss``, its default β = 1)
      between ``predicted`` and ``features``, the mean over every element;
    - ``L_token``: the cross-entropy of the head's distribution against the target's,
      ``− Σ_x p(x) log q(x)``, summed over the vocabulary and averaged over the ``B · T``
      positions (p, q the softmaxes of the logits; ``torch.nn.functional.cross_entropy`` takes
      the classes in dim 1, so flatten the logits to ``[B · T, V]`` if you use it);
    - the target is the teacher: no gradient reaches ``features`` or ``target_logits``.
    """
    # BEGIN SOLUTION
    feature_loss = nn.functional.smooth_l1_loss(predicted, features.detach())
    p = target_logits.detach().softmax(-1)
    token_loss = -(p * head_logits.log_softmax(-1)).sum(-1).mean()
    return feature_weight * feature_loss + token_weight * token_loss
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def unrolled_eagle_loss(head: "FeatureHead", features: torch.Tensor, tokens: torch.Tensor,
                        target_logits: torch.Tensor, steps: int = 3, feature_weight: float = 1.0,
                        token_weight: float = 1.0) -> torch.Tensor:
    """EAGLE-3's training-time test: the head trained on its own predicted features, as it
    drafts them; returns the mean over the ``steps`` steps of their ``eagle_loss``, 0-dim.

    features ``[B, T, d]`` the target's ``f_t``, tokens ``[B, T]`` the text ``x_t``,
    target_logits ``[B, T, V]`` the target's logits (row ``t`` scores ``x_{t+1}``): the
    teachers, which no gradient may reach (``features`` is step 0's input as well: detach it
    there too). ``1 ≤ steps ≤ T − 1``.

    Drafting from root ``t`` (the head has read the true pairs up to ``(f_t, x_{t+1})``):

    - step 0 is EAGLE-1: the pairs ``(f_t, x_{t+1})`` at positions ``t = 0 … T − 2``, each
      seeing the pairs before it (causal), predict ``f̂⁰_t``, the feature of position ``t + 1``;
    - step ``j ≥ 1``: root ``t`` reads ``(f̂^{j−1}_t, x_{t+j+1})`` at position ``t + j`` and
      predicts ``f̂^j_t``, the feature of position ``t + j + 1``. Its query sees step 0's
      keys at positions ``≤ t`` (true features) and its own chain (root ``t``'s keys of
      steps ``1 … j``), nothing of the other roots' chains. Only the roots whose prediction
      has a target (``t + j + 1 ≤ T − 1``) go on: ``n_j = T − 1 − j`` of them;
    - step ``j``'s loss is ``eagle_loss`` of its features and logits against the target's at
      the positions they predict (``features[:, j + 1:]``, ``target_logits[:, j + 1:]``),
      with the two weights. Nothing is detached between steps: the gradient flows through
      the whole unroll.

    Example, ``T = 4``, ``steps = 3`` (roots ``t = 0, 1, 2``)::

        step 0: (f_0, x_1) (f_1, x_2) (f_2, x_3)  at positions 0 1 2  → scored on f_1 f_2 f_3
        step 1: (f̂⁰_0, x_2) (f̂⁰_1, x_3)          at positions 1 2    → scored on f_2 f_3
        step 2: (f̂¹_0, x_3)                      at position 2       → scored on f_3

        step 1's mask, keys [step 0 | step 1]:       root 0: 1 0 0 | 1 0
                                                     root 1: 1 1 0 | 0 1
        step 2's mask, keys [step 0 | step 1 | 2]:   root 0: 1 0 0 | 1 0 | 1

    Call ``feature_draft_step`` once per step, with one ``DynamicCache`` that keeps the
    earlier steps' keys, ``position_ids`` ``[1, n_j]`` and a 4D ``attention_mask`` over the
    keys ``[step 0 | step 1 | … | step j]`` (lesson 9's ``attention_bias`` of a bool
    ``[n_j, n_0 + … + n_j]``): ``t' ≤ t`` over step 0's ``n_0`` keys, ``t' == t`` over
    each later step's: ``[tril | I | … | I]``.
    """
    # BEGIN SOLUTION
    roots = features.shape[1] - 1
    features, target_logits = features.detach(), target_logits.detach()
    cache, predicted, total = DynamicCache(), features[:, :-1], 0.0
    for step in range(steps):
        n = roots - step  # roots t < n: their step's prediction, of position t + step + 1, exists
        root = torch.arange(n, device=features.device)[:, None]
        allowed = torch.cat([root >= torch.arange(roots, device=features.device)]  # true features t' ≤ t
                            + [root == torch.arange(roots - i, device=features.device)  # its own chain
                               for i in range(1, step + 1)], dim=1)
        predicted, logits = feature_draft_step(head, predicted[:, :n], tokens[:, step + 1:], cache,
                                               attention_bias(allowed, features.dtype), (root + step).T)
        total = total + eagle_loss(predicted, features[:, step + 1:], logits, target_logits[:, step + 1:],
                                   feature_weight, token_weight)
    return total / steps
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


@torch.inference_mode()
def eagle_generate(inputs: list[int], target, head: "FeatureHead", gamma: int = 5,
                   logits_processor: LogitsProcessor = GreedyProcessor(), max_gen_len: int = 40,
                   eos_tokens_id: int | list[int] = 1, pad_token_id: int = 0) -> tuple[list[int], float]:
    """Speculative decoding drafted by the feature head; returns ``(ids, acceptance_rate)``
    as ``speculative_generate`` does (lesson 3's contract: the generated ids, prompt
    excluded, and accepted drafts / drafted tokens, 0.0 when nothing was drafted).

    - Prefill: ``prefill`` (provided) runs the target over the prompt, samples the first
      token and keeps the prompt's features; stop there if it is an end token.
    - A round, with ``k = min(gamma, tokens still allowed − 1)``: the head first reads every
      pair ``(f_t, x_{t+1})`` whose feature is the target's own and that it has not read
      (one ``feature_draft_step``); its last row gives ``q`` for the first draft. Each later
      draft feeds back the head's predicted feature and the previous draft (one step each).
      Keep the ``k`` rows of ``q = logits_processor(logits)``.
    - ONE ``target_step`` over the last token and the k drafts gives p ``[k + 1, V]`` and
      k + 1 true features; ``speculative_sampling(p, q, drafts)`` and ``settle`` decide the
      round as in lesson 4.
    - Roll back both caches: the target's to the new length minus one (as in lesson 4), the
      head's to the pairs built on true features (its drafting steps used predicted ones).
      Keep the true features of the accepted positions for the next round.
    - End tokens and ``max_gen_len`` as in lesson 3. Both models on ``target.device``.

    Hint: ``prefill``'s features buffer ``[1, len(inputs) + max_gen_len, d]`` sits beside the
    ids; let the head's cache length say where its unread pairs start.
    """
    # BEGIN SOLUTION
    processor = logits_processor
    prompt_len, total_len = len(inputs), len(inputs) + max_gen_len
    if max_gen_len <= 0:
        return [], 0.0
    ids, stop_ids, target_cache, true_features = prefill(inputs, target, processor, max_gen_len, eos_tokens_id,
                                                         pad_token_id)
    head_cache = DynamicCache()
    end, drafted, accepted = prompt_len + 1, 0, 0
    if torch.isin(ids[0, end - 1], stop_ids):  # the prefill's one host sync
        return ids[0, prompt_len:end].tolist(), 0.0
    while end < total_len:
        k = min(gamma, total_len - end - 1)  # keep one slot for the target's own token
        read = head_cache.get_seq_length()  # pairs (f_t, x_{t+1}) the head holds: t < read
        q_rows = []
        if k > 0:
            predicted, head_logits = feature_draft_step(head, true_features[:, read:end - 1],
                                                        ids[:, read + 1:end], head_cache)
            for i in range(k):
                q_rows.append(processor(head_logits[0, -1]))
                ids[0, end + i] = processor.sample(q_rows[-1])
                if i + 1 < k:
                    predicted, head_logits = feature_draft_step(head, predicted[:, -1:],
                                                                ids[:, end + i:end + i + 1], head_cache)
        features, logits = target_step(target, ids[:, end - 1:end + k], target_cache)
        p = processor(logits[0])  # [k + 1, V]
        q = torch.stack(q_rows) if q_rows else p[:0]  # [k, V]
        rejected_idx, token = speculative_sampling(p, q, ids[0, end:end + k])
        ids.index_copy_(1, (end + rejected_idx).view(1), token.view(1, 1))
        n, first_stop = settle(ids[0, end:end + k + 1], rejected_idx, stop_ids)
        true_features[:, end - 1:end + n] = features[:, :n + 1]  # the accepted positions' features
        roll_back(head_cache, end - 1)  # the pairs built on predicted features go
        drafted, accepted = drafted + k, accepted + n
        end += min(n, first_stop) + 1
        roll_back(target_cache, end - 1)
        if first_stop <= n:
            break
    return ids[0, prompt_len:end].tolist(), accepted / drafted if drafted else 0.0
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def grow_tree(head: "FeatureHead", feature: torch.Tensor, logits: torch.Tensor, cache: DynamicCache,
              processor: LogitsProcessor, depth: int = 5, top_k: int = 4,
              total: int = 16) -> tuple[list[int], torch.Tensor]:
    """EAGLE-2's dynamic tree below the root; returns ``(parents, tokens)`` of its ``N ≤ total`` nodes.

    feature ``[1, 1, d]`` and logits ``[V]``: the head's last row after reading the text's
    true pairs (its predicted feature and the scores of the root's children); ``cache`` the
    head's, holding those ``L`` pairs. A node's **confidence** is the product of the head's
    probabilities along its path, kept as a sum of logs of ``processor(logits)``, or, under
    greedy decoding (``processor.is_greedy``: its one-hot would leave one child), of
    ``logits.softmax(-1)``.

    - Level 1 is the root's ``top_k`` likeliest tokens. While the tree is shallower than
      ``depth``, the ``top_k`` most confident nodes of the level just made (``topk`` over
      it; those of confidence 0 never) are expanded, in ``topk``'s order, most confident
      first: ONE ``feature_draft_step`` over their pairs (the parent's predicted feature, the
      node's token) gives each its ``top_k`` likeliest children, the next level, made in that
      order (the most confident parent's children first).
    - The head reads an expanded node at position ``L − 1 + its depth``, seeing the true
      pairs and its expanded ancestors: lay the expanded nodes out as a tree of their own
      (``tree_layout`` of their parents among them) and take ``tree_attention(L, mask,
      depths, seen, dtype)`` for the ones not fed yet.
    - Then keep the ``total`` most confident of all the nodes made, dropping those of
      confidence 0: ``torch.argsort(..., descending=True, stable=True)``. A child is never
      more confident than its parent, and ties go to the node made first, so every kept
      node's parent is kept.

    ``parents[i]`` is kept node ``i``'s parent as an index among the kept nodes (renumber
    them after dropping; ``-1``: the root), the nodes in the order they were made (a parent
    before its children, siblings likeliest first); ``tokens`` ``[N]`` long. The head's cache is left holding the expanded nodes after the ``L`` pairs.
    """
    # BEGIN SOLUTION
    text_len = cache.get_seq_length()
    parents, tokens, scores = [], [], []  # of every node made, in the order made
    expanded = []  # the nodes whose pairs the head's cache holds after the text's, in that order
    level_nodes, level_scores = [-1], torch.zeros(1, device=logits.device)  # the root, log confidence 0
    level_features, level_logits = feature, logits[None]
    for level in range(depth):
        probs = level_logits.softmax(-1) if processor.is_greedy else processor(level_logits)
        child_scores, child_tokens = probs.float().log().topk(top_k, dim=-1)  # [w, top_k]
        child_scores = (level_scores[:, None] + child_scores).flatten()
        first = len(parents)
        parents += [node for node in level_nodes for _ in range(top_k)]
        tokens.append(child_tokens.flatten())
        scores.append(child_scores)
        if level + 1 == depth:
            break
        best = child_scores.topk(min(top_k, child_scores.numel())).indices
        best = best[child_scores[best] > -torch.inf]
        level_nodes, level_scores = (first + best).tolist(), child_scores[best]
        expanded += level_nodes
        place = {node: i for i, node in enumerate(expanded)}
        mask, depths = tree_layout([place.get(parents[node], -1) for node in expanded])
        attention_mask, position_ids = tree_attention(text_len, mask.to(logits.device), depths.to(logits.device),
                                                      cache.get_seq_length(), level_features.dtype)
        level_features, head_logits = feature_draft_step(head, level_features[:, best // top_k],
                                                         child_tokens.flatten()[best][None], cache,
                                                         attention_mask, position_ids)
        level_logits = head_logits[0]
    scores, tokens = torch.cat(scores), torch.cat(tokens)
    kept = torch.argsort(scores, descending=True, stable=True)[:total]
    kept = kept[scores[kept] > -torch.inf].sort().values.tolist()  # back in the order made
    renumber = {node: i for i, node in enumerate(kept)}
    return [renumber[parents[node]] if parents[node] >= 0 else -1 for node in kept], tokens[kept]
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def walk_deterministic_tree(p: torch.Tensor, parents: list[int], tokens: torch.Tensor) -> tuple[list[int], torch.Tensor]:
    """Walk a tree of chosen children from the root; returns ``(path, token)``.

    p ``[N + 1, V]`` the target's processed distributions (row 0 the root, row ``1 + i``
    node ``i``); ``parents`` and ``tokens`` ``[N]`` as ``grow_tree`` returns them. At the
    current row, ``verify_deterministic_children(p[row], tokens of its children)`` either
    accepts a child (go down to its row) or gives the token to emit; a row without children
    ends the walk with a token drawn from its p. ``path``: the rows of the accepted nodes
    (``1 + i``), root excluded; ``token`` 0-dim, emitted after them.

    Hint: a list of each row's children first; one host read per level is fine here.
    """
    # BEGIN SOLUTION
    children = [[] for _ in range(len(parents) + 1)]
    for node, parent in enumerate(parents):
        children[parent + 1].append(node + 1)
    row, path = 0, []
    while children[row]:
        rows = torch.tensor(children[row], device=tokens.device)
        index, token = verify_deterministic_children(p[row], tokens[rows - 1])
        if index == len(rows):
            return path, token
        row = children[row][index]
        path.append(row)
    return path, sample(p[row])
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


@torch.inference_mode()
def eagle_tree_generate(inputs: list[int], target, head: "FeatureHead", depth: int = 5, top_k: int = 4,
                        total: int = 16, logits_processor: LogitsProcessor = GreedyProcessor(),
                        max_gen_len: int = 40, eos_tokens_id: int | list[int] = 1,
                        pad_token_id: int = 0) -> tuple[list[int], float]:
    """Speculative decoding with EAGLE-2's dynamic tree; returns ``(ids, mean_accepted)`` as
    lesson 9's ``tree_speculative_generate`` does (the nodes accepted per round, a round
    being one target forward after the prefill).

    - Prefill as in ``eagle_generate``, with ``room=total``.
    - A round, ``end`` tokens so far: the tree's depth is ``k = min(depth, tokens still
      allowed − 1)``. When ``k > 0`` the head reads its unread true pairs (one
      ``feature_draft_step``, as in ``eagle_generate``) and ``grow_tree`` grows the tree
      from its last row; write the nodes into the buffer after the text.
    - ONE ``target_step`` over the last token and the nodes, with the tree's mask and
      positions (``tree_layout``, then ``tree_attention(end, mask, depths, end − 1, dtype)``),
      gives p ``[N + 1, V]`` and the features of the root and every node.
    - ``walk_deterministic_tree`` accepts a path of ``n`` nodes; the round emits them and the
      token it returns; ``settle`` finds the first end token.
    - Tidy both caches unless generation is over: the target's keeps the text and the path
      (``keep_positions``: row ``x`` sits at position ``end − 1 + x``); the head's goes back
      to its true pairs (``roll_back``). Keep the true features of the root and the path.

    Hint: ``prefill``'s ``room=total`` leaves room for a whole tree past the last slot; write
    the emitted tokens over the nodes at ``ids[0, end:end + n + 1]``.
    """
    # BEGIN SOLUTION
    device, processor = target.device, logits_processor
    prompt_len, total_len = len(inputs), len(inputs) + max_gen_len
    if max_gen_len <= 0:
        return [], 0.0
    ids, stop_ids, target_cache, true_features = prefill(inputs, target, processor, max_gen_len, eos_tokens_id,
                                                         pad_token_id, room=total)
    head_cache = DynamicCache()
    end, rounds, accepted = prompt_len + 1, 0, 0
    if torch.isin(ids[0, end - 1], stop_ids):  # the prefill's one host sync
        return ids[0, prompt_len:end].tolist(), 0.0
    while end < total_len:
        k = min(depth, total_len - end - 1)
        parents, nodes = [], ids.new_zeros(0)
        if k > 0:
            read = head_cache.get_seq_length()
            predicted, head_logits = feature_draft_step(head, true_features[:, read:end - 1], ids[:, read + 1:end],
                                                        head_cache)
            parents, nodes = grow_tree(head, predicted[:, -1:], head_logits[0, -1], head_cache, processor, k,
                                       top_k, total)
        count = len(parents)
        ids[0, end:end + count] = nodes
        mask, depths = (t.to(device) for t in tree_layout(parents))
        attention_mask, position_ids = tree_attention(end, mask, depths, end - 1, true_features.dtype)
        features, logits = target_step(target, ids[:, end - 1:end + count], target_cache, attention_mask,
                                       position_ids)
        path, token = walk_deterministic_tree(processor(logits[0]), parents, nodes)
        rows = torch.tensor([0] + path, dtype=torch.long, device=device)  # the root and the accepted nodes
        ids[0, end:end + len(path)] = nodes[rows[1:] - 1]
        ids[0, end + len(path)] = token
        n, first_stop = settle(ids[0, end:end + len(path) + 1], rows.new_tensor(len(path)), stop_ids)
        rounds, accepted = rounds + 1, accepted + n
        true_features[:, end - 1:end + n] = features[:, rows]
        if first_stop <= n or end + n + 1 >= total_len:  # done: no cache to tidy
            end += min(n, first_stop) + 1
            break
        keep_positions(target_cache, torch.cat([torch.arange(end, device=device), end - 1 + rows[1:]]))
        roll_back(head_cache, end - 1)
        end += n + 1
    return ids[0, prompt_len:end].tolist(), accepted / rounds if rounds else 0.0
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


class FeatureHead(nn.Module):
    """EAGLE's drafter for ``target``: ``fc`` ``[2d] -> [d]`` fuses a pair, ``decoder`` (``layers``
    decoder layers of the target's own kind, with its positions, masks and cache handling)
    predicts the next feature. ``embed`` and ``lm_head`` are the target's own modules,
    borrowed: never trained or saved with the head (``own_parameters``, ``own_state_dict``).
    """

    def __init__(self, target, layers: int = 1, intermediate_size: int | None = None):
        super().__init__()
        config = copy.deepcopy(target.config)
        config.num_hidden_layers = layers
        config.intermediate_size = intermediate_size or config.intermediate_size
        width = config.hidden_size
        self.fc = nn.Linear(2 * width, width, bias=False)
        self.decoder = AutoModel.from_config(config).to(target.dtype)
        # the pairs come in as inputs_embeds, and the predicted feature is compared with the
        # target's, which is taken after its final norm: the decoder's own are not used
        del self.decoder.embed_tokens
        self.decoder.norm = nn.Identity()
        self.embed, self.lm_head = target.get_input_embeddings(), target.get_output_embeddings()
        self.to(target.device, target.dtype)

    BORROWED = ("embed.", "lm_head.")

    def own_parameters(self) -> list[nn.Parameter]:
        return [param for name, param in self.named_parameters() if not name.startswith(self.BORROWED)]

    def own_state_dict(self) -> dict[str, torch.Tensor]:
        return {name: value for name, value in self.state_dict().items() if not name.startswith(self.BORROWED)}

    def save(self, folder: str | Path, notes: dict | None = None) -> None:
        """The head's own weights (``head.safetensors``) and shape (``config.json``, with ``notes``)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        config = {"layers": self.decoder.config.num_hidden_layers,
                  "intermediate_size": self.decoder.config.intermediate_size, **(notes or {})}
        (folder / "config.json").write_text(json.dumps(config, indent=1) + "\n")
        save_file({name: value.contiguous() for name, value in self.own_state_dict().items()},
                  str(folder / "head.safetensors"))


def load_feature_head(target, folder: str | Path = SHIPPED_FEATURE_HEAD) -> FeatureHead:
    """The head saved in ``folder`` (by default the one trained for the shipped target), on
    ``target``'s device and dtype, in eval mode."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text())
    head = FeatureHead(target, config["layers"], config["intermediate_size"])
    missing, unexpected = head.load_state_dict(load_file(str(folder / "head.safetensors")), strict=False)
    if unexpected or not all(name.startswith(FeatureHead.BORROWED) for name in missing):
        raise ValueError(f"{folder} does not hold a feature head of this shape: missing "
                         f"{[n for n in missing if not n.startswith(FeatureHead.BORROWED)]}, unexpected {unexpected}")
    return head.to(target.device, target.dtype).eval()


def prefill(inputs: list[int], target, processor: LogitsProcessor, max_gen_len: int, eos_tokens_id: int | list[int],
            pad_token_id: int, room: int = 0) -> tuple[torch.Tensor, torch.Tensor, DynamicCache, torch.Tensor]:
    """Both loops' start: one ``target_step`` over the prompt samples the first token.

    Returns ``(ids, stop_ids, cache, true_features)``: ids ``[1, len(inputs) + max_gen_len +
    room]`` (the prompt, the first token, then ``pad_token_id``), the end tokens as a
    LongTensor, the target's cache holding the prompt, and the features buffer ``[1,
    len(inputs) + max_gen_len, d]`` whose first ``len(inputs)`` rows are the prompt's.
    All on ``target.device``."""
    device, prompt_len, total_len = target.device, len(inputs), len(inputs) + max_gen_len
    ids = torch.full((1, total_len + room), pad_token_id, dtype=torch.long, device=device)
    ids[0, :prompt_len] = torch.tensor(inputs, dtype=torch.long, device=device)
    cache = DynamicCache()
    features, logits = target_step(target, ids[:, :prompt_len], cache)
    true_features = features.new_zeros(1, total_len, features.shape[-1])  # f_t for t < end − 1
    true_features[:, :prompt_len] = features
    ids[0, prompt_len] = processor.sample(processor(logits[0, -1]))
    return ids, torch.tensor(as_list(eos_tokens_id), dtype=torch.long, device=device), cache, true_features


def target_step(target, new_ids: torch.Tensor, cache: DynamicCache, attention_mask: torch.Tensor | None = None,
                position_ids: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """One target forward over ``new_ids`` ``[1, n]`` (the tokens its cache has not seen):
    ``(features [1, n, d], logits [1, n, V])``, the features being what the LM head read.
    ``attention_mask`` and ``position_ids`` (a tree's, from ``tree_attention``) as in
    ``feature_draft_step``."""
    out = target(new_ids, attention_mask=attention_mask, position_ids=position_ids, cache=cache, use_cache=True,
                 output_hidden_states=True)
    return out.hidden_states[-1], out.logits
