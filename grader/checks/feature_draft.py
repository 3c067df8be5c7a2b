"""Check `feature_draft_step` on the tiny target and its feature head (the eagle_generate
check's): the returned pair's shapes, its values against the reference's on the same
pairs, a batch of rows without a cache (training), and the cache: pairs fed in three runs
give the rows one forward over all of them gives, and the cache holds one entry per pair;
then a tree's nodes read with its mask and positions (lesson 9's ``tree_attention``, as
``grow_tree`` calls the step), against the reference's on the same cache.
The reference's values are the decider's alone (grader/judges/feature_draft.py)."""
import functools
from collections.abc import Callable
from typing import Any

import torch
from transformers import DynamicCache

from grader.checks.eagle_generate import head_forward, models
from grader.checks.harness import CheckRun
from grader.judged.losses import Rows
from solutions.trees import tree_attention, tree_layout

RUNS = (4, 1, 2)  # pairs fed per call with one cache
TREE_TEXT, TREE_PARENTS = 4, [-1, -1, 0]  # true pairs in the cache, then a tree's nodes
SHAPE_HINT = ("the head returns one predicted feature and one row of logits per pair: features [B, n, d] "
              "and logits [B, n, V] for features [B, n, d] and tokens [B, n].",
              "predicted = head.decoder(inputs_embeds=head.fc(pairs), cache=cache, use_cache=cache is not "
              "None).last_hidden_state; logits = head.lm_head(predicted)")
CACHE_HINT = ("with a cache, each call feeds only its new pairs, and the cache tells the decoder where they "
              "stand: pairs fed in several calls must give the rows one call over all of them gives.",
              "pass the head's cache to head.decoder (cache=cache, use_cache=True); never start a new one, "
              "and feed each pair once")


def pairs_of(check: CheckRun, target, rows: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Random tokens ``[rows, length + 1]`` and the target's features of them: (features of
    positions 0 … length − 1, tokens 1 … length), as the loop pairs them."""
    ids = torch.randint(0, target.config.vocab_size, (rows, length + 1), generator=check.generator("pairs", rows))
    with torch.no_grad():
        features = target(ids, output_hidden_states=True).hidden_states[-1]
    return features[:, :-1], ids[:, 1:]


def with_cache_length(fn: Callable[..., Any], cache: DynamicCache | None) -> Callable[..., tuple[Any, int]]:
    """``fn``, returning also its cache's length after the call: the decider, which runs none
    of the learner's code, learns the length from the runner's answer."""
    @functools.wraps(fn)  # a failure names the learner's function
    def called(*args: Any) -> tuple[Any, int]:
        return fn(*args), 0 if cache is None else int(cache.get_seq_length())
    return called


def stepped(check: CheckRun, step, head, features, tokens, cache, what: str, *tree):
    """The learner's ``(next_features, logits)`` as float64 tensors of the expected shapes,
    and the cache's length after the call; ``tree``: the attention mask and position ids."""
    result, length = check.call(with_cache_length(step, cache), head, features, tokens, cache, *tree, what=what)
    rows, n = tokens.shape
    shapes = ([rows, n, features.shape[-1]], [rows, n, head.lm_head.out_features])
    ok = (isinstance(result, tuple) and len(result) == 2
          and all(isinstance(x, torch.Tensor) and list(x.shape) == s for x, s in zip(result, shapes)))
    if not ok:
        got = [list(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
               for x in (result if isinstance(result, tuple) else [result])]
        check.fail("return value", f"returned {got} {what}; expected (next_features {shapes[0]}, "
                   f"logits {shapes[1]})", SHAPE_HINT)
    return tuple(x.detach().double() for x in result), length


def run(check: CheckRun) -> None:
    step = check.function("feature_draft_step")
    target, head = models()
    features, tokens = pairs_of(check, target, 1, sum(RUNS))
    whole, _ = stepped(check, step, head, features, tokens, None, f"({sum(RUNS)} pairs, no cache)")
    check.judge("same_as_reference", Rows("no cache", head, features, tokens, whole))
    batch_features, batch_tokens = pairs_of(check, target, 3, 5)
    batch, _ = stepped(check, step, head, batch_features, batch_tokens, None, "(3 rows of 5 pairs, no cache)")
    check.judge("same_as_reference", Rows("a batch of 3 rows, no cache", head, batch_features, batch_tokens, batch))
    cache, start, lengths, parts = DynamicCache(), 0, [], []
    for n in RUNS:
        part, length = stepped(check, step, head, features[:, start:start + n], tokens[:, start:start + n],
                               cache, f"({n} pairs after {start} in the cache)")
        parts.append(part)
        lengths.append(length)
        start += n
    check.require("the cache holds one entry per pair fed", lengths == [4, 5, 7],
                  f"after feeding {list(RUNS)} pairs its length was {lengths}; expected [4, 5, 7]", CACHE_HINT)
    gap = max(float((torch.cat([part[i] for part in parts], 1) - whole[i]).abs().max()) for i in (0, 1))
    check.require("pairs fed in three calls with a cache give the rows of one call", gap <= 1e-9,
                  f"the rows differ by up to {gap:.3g} from those of one call over all {sum(RUNS)} pairs",
                  CACHE_HINT)
    check.stop_if_failed("checks of a tree's nodes read with the cache")
    check_tree_nodes(check, step, target, head)


def check_tree_nodes(check: CheckRun, step, target, head) -> None:
    """Nodes of a tree after a text's pairs, read with the tree's mask and positions."""
    features, tokens = pairs_of(check, target, 1, TREE_TEXT + len(TREE_PARENTS))
    cache = DynamicCache()
    with torch.no_grad():
        head_forward(head, features[:, :TREE_TEXT], tokens[:, :TREE_TEXT], cache)
    mask, depths = tree_layout(TREE_PARENTS)
    attention_mask, position_ids = tree_attention(TREE_TEXT, mask, depths, TREE_TEXT, features.dtype)
    nodes, _ = stepped(check, step, head, features[:, TREE_TEXT:], tokens[:, TREE_TEXT:], cache,
                       f"({len(TREE_PARENTS)} tree nodes with parents {TREE_PARENTS} after {TREE_TEXT} pairs in the "
                       "cache, with the tree's attention_mask and position_ids)", attention_mask, position_ids)
    check.judge("same_as_reference_on_a_tree", Rows("", head, features, tokens, nodes, TREE_TEXT, tuple(TREE_PARENTS)))
