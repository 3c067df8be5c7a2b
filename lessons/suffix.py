"""Lesson 12 — drafts without a model: suffix decoding over the corpus and the text so far.

On a laptop a drafter model costs 10–20% of a target step, and its drafts are often wrong.
Much of what a model writes, code above all, has been written before: in the text it was
trained on, in the prompt, earlier in its own output. **SuffixDecoding** (Oliaro et al.,
2024) drafts from there: find the longest suffix of the text so far that occurs in an
index of token ids, and propose what followed it, as often as it followed it.

- ``SuffixIndex``: a **suffix automaton** over token ids. Why an automaton: it is built
  online, one token at a time, in amortised constant time (the text so far grows every
  round); it has at most ``2n`` states however repetitive the text; one state holds
  every substring with the same set of end positions, so "how often does this string
  occur" is one number per state (``count``) and "what follows it, how often" is the
  counts of the states its transitions reach. A suffix tree answers the same questions
  but is harder to build online; a suffix array is compact and fast to build in numpy
  for a fixed text (``CorpusIndex`` below uses one for the corpus's 3 million tokens,
  where Python dictionaries would take gigabytes) but cannot grow.
- ``speculation_tree``: from the longest match, grow a tree of candidate continuations
  best-first; a node's **score** is its parent's score × how often its token follows the
  parent's path / how often anything does (SuffixDecoding's estimate of the probability
  that the node is accepted). Nodes are kept while their score clears a threshold, so
  the tree is large where the match is confident and empty where it is not: the
  speculation length adapts by itself.
- ``suffix_speculative_generate``: ONE target forward per round scores the whole tree
  (lesson 9's tree attention); the walk verifies a node's children as point masses
  (lesson 11's ``verify_deterministic_children``: they are chosen, not sampled), so the
  output has the target's law exactly; the accepted tokens go into the index.
- ``adaptive_speculative_generate``: the same idea for a model drafter (transformers'
  dynamic speculation): lesson 4's loop stops drafting as soon as the drafter's
  confidence (its largest probability) falls below a threshold.

Exercises, in order: ``SuffixIndex`` (``grader check suffix_index``), ``speculation_tree``
(``grader check suffix_tree``), ``suffix_speculative_generate`` (``grader check
suffix_generate``), ``adaptive_speculative_generate`` with its step
``draft_while_confident`` (``grader check adaptive_generate``), all used in notebook 12.
``CorpusIndex`` (the corpus's suffix array, built once and cached on disk) and
``corpus_index`` (the shipped pair's) are provided complete below the stubs, and
``round_tree`` (a round's tree: the text's or the corpus's, both suffix loops call it) after
``speculation_tree``.

An index is anything with ``find(context) -> (length, node)`` and ``children(node) ->
{token: (count, child node)}``; both classes here are one.
"""
import hashlib
import heapq
import itertools
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import torch
from transformers import DynamicCache

from lessons.autoregressive import as_list  # noqa: F401  (an int or a list of end tokens)
from lessons.eagle import walk_deterministic_tree  # noqa: F401  (your lesson-11 walk of chosen children)
from lessons.sampling import GreedyProcessor, LogitsProcessor  # your lesson-0 processors
from lessons.speculative import forward, roll_back, settle  # noqa: F401  (your lesson-3 steps)
from lessons.trees import keep_positions, tree_attention  # lesson 9's provided tree forward parts
from lessons.trees import tree_layout  # noqa: F401  (your lesson-9 mask and depths)
from lessons.verification import speculative_sampling  # noqa: F401  (lesson 2)

# Earlier steps this lesson calls, and the exercise that grades each:
#   GreedyProcessor, the default logits_processor (lesson 0: `grader check processors`)
#   speculative_sampling (lesson 2: `grader check speculative_sampling`)
#   forward, settle, roll_back (lesson 3's steps: `grader check speculative_generate`)
#   tree_layout (lesson 9: `grader check tree_attention`)
#   walk_deterministic_tree (lesson 11: `grader check eagle_tree_generate`)
# Not passed yet? Meanwhile take the reference's, in place of the import above:
#   from solutions.sampling import GreedyProcessor, LogitsProcessor
#   from solutions.verification import speculative_sampling
#   from solutions.speculative import forward, roll_back, settle
#   from solutions.trees import tree_layout
#   from solutions.eagle import walk_deterministic_tree
# `grader check` and `grader grade` both accept it: each exercise is graded on its own
# functions, and the reference is refused only for the exercise being graded.
# The checks pass processors of their own, so a loop is graded before lesson 0 is done.

__all__ = ["SuffixIndex", "speculation_tree", "suffix_speculative_generate", "adaptive_speculative_generate",
           "CorpusIndex", "corpus_index", "fast_suffix_speculative_generate"]

MAX_MATCH = 64  # the loop looks for matches among the last MAX_MATCH tokens of the text


class SuffixIndex:
    """A suffix automaton over a growing text of token ids.

    State 0 is the root (the empty string). Every other state ``s`` stands for the
    substrings of the text that end at the same set of positions; ``length[s]`` is the
    longest of them, ``link[s]`` the state of its longest suffix that ends elsewhere too
    (the suffix link), ``next[s]`` its transitions ``{token: state}`` and ``count[s]`` how
    many times its strings occur (the size of their end-position set).

    - ``extend(tokens)`` appends tokens to the text (the classic online construction:
      a new state for the whole text, transitions added along the suffix links of the
      previous last state, a clone when a transition skips lengths). Keep ``count``
      exact as you go: the new last state and every state on its suffix-link path gain
      one end position (a clone starts with the count of the state it was cloned from).
    - ``find(context)`` returns ``(length, state)``: the longest suffix of ``context``
      (a sequence of ints, maybe empty) that occurs in the text **followed by a token**,
      and its state. Walk the context through the transitions, falling back along the
      suffix links when a token has none (the length becomes that state's ``length``);
      at the end, while the state has no transitions (its strings occur only at the end
      of the text), fall back once more. The empty match is ``(0, 0)``.
    - ``children(state)`` (provided) is ``{token: (count, child state)}``: how often each
      token follows the state's strings, and where it leads.

    Example: after ``extend([1, 2, 3, 1, 2, 4])``, ``find([7, 1, 2])`` is ``(2, s)`` and
    ``children(s)`` gives counts ``{3: 1, 4: 1}``; ``find([2, 4])`` is ``(0, 0)`` ([2, 4]
    and [4] occur only at the end), whose children are every token with its count.
    """

    def __init__(self, tokens: Iterable[int] = ()):
        self.length, self.link, self.next, self.count = [0], [-1], [{}], [0]
        self.last = 0  # the state of the whole text
        self.size = 0  # tokens appended
        self.extend(tokens)

    def __len__(self) -> int:
        return self.size

    def extend(self, tokens: Iterable[int]) -> None:
        """Append ``tokens`` (ints) to the text, one at a time."""
        raise NotImplementedError


    def find(self, context: Sequence[int]) -> tuple[int, int]:
        """``(length, state)`` of the longest suffix of ``context`` followed by a token in the text."""
        raise NotImplementedError

    def children(self, state: int) -> dict[int, tuple[int, int]]:
        """``{token: (count, child state)}``: each token that follows ``state``'s strings, how often."""
        return {token: (self.count[child], child) for token, child in self.next[state].items()}

    def match(self, context: Sequence[int]) -> tuple[int, dict[int, int]]:
        """``(length, {token: count})``: the longest match (``find``) and how often each token follows it."""
        length, state = self.find(context)
        return length, {token: count for token, (count, _) in self.children(state).items()}


def speculation_tree(index, context: Sequence[int], max_nodes: int = 24, threshold: float = 0.1,
                     max_depth: int = 16) -> tuple[list[int], list[int], list[float]]:
    """SuffixDecoding's speculation tree below the longest match of ``context``; returns
    ``(parents, tokens, scores)``, three lists of ``N ≤ max_nodes`` Python values.

    ``index``: anything with ``find`` and ``children`` (``SuffixIndex``, ``CorpusIndex``).
    The root is the match ``index.find(context)``, score 1.0, and is not one of the ``N``
    nodes (in the loop it stands for the text's last token, already known): the nodes are
    its descendants. A node's children are the
    tokens that follow its path in the index (``index.children``); child ``c`` of a node
    of score ``s`` scores ``s * count(c) / total``, ``total`` the sum of the counts of all
    the node's children (computed in that order, left to right: the grader compares floats).

    Grow the tree best-first with a heap (``heapq``): push the root's children (the root is
    at depth 0, so none when ``max_depth`` is 0: the loop asks for that when one token is
    still allowed); pop the best candidate, append it as the next node, push its children
    (unless the node is at ``max_depth``); stop at ``max_nodes`` nodes or when the heap is empty. Push a
    candidate only if its score is ``≥ threshold``. Ties: the candidate pushed first wins,
    and a node pushes its children by count, largest first, then by token id, smallest
    first (a counter in the heap's key, after ``-score``, does both).

    ``parents[i]``: the index of node ``i``'s parent, ``-1`` for a child of the root, always ``< i``
    (the layout lesson 9's ``tree_layout`` takes); ``tokens[i]`` its token; ``scores[i]``
    its score (non-increasing along the list: a child never beats its parent).
    """
    raise NotImplementedError


def round_tree(text: list[int], own: SuffixIndex, corpus, max_nodes: int, threshold: float,
               room: int) -> tuple[list[int], list[int], list[float]]:
    """A round's speculation tree, provided: ``speculation_tree`` of the last ``MAX_MATCH``
    tokens of ``text`` (a list of ints) from the text's own index ``own`` and from ``corpus``
    (an index, or ``None``: skipped), the one whose scores sum higher (``own``'s on a tie):
    that sum is the number of nodes it expects to be accepted. ``room`` (int ≥ 1): the tokens
    the output may still take; the tree is ``k = min(max_nodes, room − 1)`` deep, so that its
    path and the round's own token fit (none in the last round). Returns ``(parents, tokens,
    scores)`` as ``speculation_tree`` does."""
    depth = min(max_nodes, room - 1)
    trees = [speculation_tree(index, text[-MAX_MATCH:], max_nodes, threshold, depth)
             for index in (own, corpus) if index is not None]
    return max(trees, key=lambda tree: sum(tree[2]))  # the first of equal sums


@torch.inference_mode()
def suffix_speculative_generate(inputs: list[int], target, corpus=None, max_nodes: int = 24,
                                threshold: float = 0.1, logits_processor: LogitsProcessor = GreedyProcessor(),
                                max_gen_len: int = 40, eos_tokens_id: int | list[int] = 1,
                                pad_token_id: int = 0) -> tuple[list[int], float]:
    """Speculative decoding drafted by suffix matches, one tree per round; returns
    ``(ids, mean_accepted)`` as lesson 9's tree loop does (the generated ids, prompt
    excluded; the nodes accepted per round, a round being one target forward after the
    prefill; 0.0 when no round ran).

    ``corpus``: an index built beforehand (``corpus_index()`` for the shipped pair; any
    object with ``find`` and ``children``), read only, or ``None``.

    - Prefill: one target forward over the prompt (a ``DynamicCache``) samples the first
      token; stop there if it is an end token. The text's own index is a ``SuffixIndex``
      of the prompt and that token.
    - A round, ``end`` tokens so far: ``round_tree(text, own, corpus, max_nodes,
      threshold, total_len − end)`` (provided) grows ``speculation_tree`` from the text's
      index and from the corpus, ``min(max_nodes, tokens still allowed − 1)`` deep, and
      keeps the one that expects more accepted tokens.
    - ONE target forward over the last token and the ``N`` nodes, with the tree's mask
      and positions (``tree_layout``, then ``tree_attention(end, mask, depths, end − 1,
      dtype)``), gives p ``[N + 1, V]`` (``logits_processor``); an empty tree is a plain
      step over the last token.
    - ``walk_deterministic_tree(p, parents, tokens)`` (the nodes are chosen, not sampled:
      point masses) accepts a path of ``n`` nodes and gives the token after them; the
      round emits those ``n + 1`` tokens; ``settle`` finds the first end token.
    - Unless generation is over: keep the text and the path in the target's cache
      (``keep_positions``: row ``x`` sits at position ``end − 1 + x``) and append the
      emitted tokens to the text's index.
    - End tokens and ``max_gen_len`` as in lesson 3; everything on ``target.device``.
    """
    raise NotImplementedError


def draft_while_confident(drafter, ids: torch.Tensor, end: int, k: int, processor: LogitsProcessor,
                          cache: DynamicCache, threshold: float) -> list[torch.Tensor]:
    """Lesson 3's ``draft`` that stops early: sample at most ``k`` drafts into
    ``ids[0, end:end + k]``, one drafter forward each (``forward(drafter, ids, end + i,
    cache, rows=1)``), and return their distributions q, a list of tensors ``[V]``.

    Before sampling draft ``i``, read the drafter's **confidence**: the largest
    probability of ``q = processor(logits)``, or, under greedy decoding
    (``processor.is_greedy``: its q is one-hot, always fully confident), of
    ``logits.softmax(-1)``. If it is below ``threshold``, stop: draft ``i`` is neither
    sampled nor returned. The decision reads only q, never the token it would draw, so the
    drafts that are made are still samples of their q and lesson 2's verifier stays exact.
    """
    raise NotImplementedError


@torch.inference_mode()
def adaptive_speculative_generate(inputs: list[int], drafter, target, gamma: int = 8, threshold: float = 0.4,
                                  logits_processor: LogitsProcessor = GreedyProcessor(), max_gen_len: int = 40,
                                  eos_tokens_id: int | list[int] = 1,
                                  pad_token_id: int = 0) -> tuple[list[int], float]:
    """Lesson 4's loop (both models with a ``DynamicCache``, the first token from the
    target's prefill) with a draft length chosen by the drafter's confidence; returns
    ``(ids, acceptance_rate)`` as ``speculative_generate`` does (accepted drafts / drafts
    made, 0.0 when nothing was drafted).

    - A round drafts with ``draft_while_confident`` at most ``k = min(gamma, tokens
      still allowed − 1)`` tokens: ``m ≤ k`` of them, maybe none.
    - ONE target forward over what its cache lacks up to the ``m`` drafts gives p
      ``[m + 1, V]``; ``speculative_sampling(p, q, drafts)`` and ``settle`` decide the
      round; roll both caches back to the new length minus one.
    - End tokens and ``max_gen_len`` as in lesson 3.
    """
    raise NotImplementedError


class CorpusIndex:
    """A suffix array over a fixed text of token ids (the corpus), answering as ``SuffixIndex``.

    tokens ``[n]`` int32; ``order`` ``[n]`` int32, the suffixes' start positions in sorted
    order (the suffix array). A node is ``(lo, hi, length)``: the suffixes in
    ``order[lo:hi]`` are those starting with the node's string, of ``length`` tokens;
    they sit together because the array is sorted, and so do those continued by the same
    next token. ``find`` searches the length by bisection (a suffix found followed by a
    token has all its shorter suffixes found too), each length by two binary searches.
    """

    def __init__(self, tokens: np.ndarray, order: np.ndarray | None = None, progress: bool = False):
        self.tokens = np.ascontiguousarray(tokens, dtype=np.int32)
        self.order = suffix_array(self.tokens, progress) if order is None else np.asarray(order, dtype=np.int32)
        self.size = len(self.tokens)
        self._text = self.tokens.tolist()  # Python slices compare fastest as lists
        self._root_children = None

    def __len__(self) -> int:
        return self.size

    def _range(self, pattern: list[int]) -> tuple[int, int]:
        """``(lo, hi)``: the suffixes that start with ``pattern``."""
        text, order, length = self._text, self.order, len(pattern)
        lo, hi = 0, self.size
        while lo < hi:  # the first suffix >= pattern
            mid = (lo + hi) // 2
            start = int(order[mid])
            if text[start:start + length] < pattern:
                lo = mid + 1
            else:
                hi = mid
        first, hi = lo, self.size
        while lo < hi:  # the first suffix that does not start with pattern
            mid = (lo + hi) // 2
            start = int(order[mid])
            if text[start:start + length] <= pattern:
                lo = mid + 1
            else:
                hi = mid
        return first, lo

    def _followed(self, pattern: list[int]) -> tuple[int, int]:
        """``_range`` without the one suffix that is the pattern alone (the text's end)."""
        lo, hi = self._range(pattern)
        if lo < hi and int(self.order[lo]) + len(pattern) == self.size:
            lo += 1
        return lo, hi

    def find(self, context: Sequence[int]) -> tuple[int, tuple[int, int, int]]:
        context = [int(t) for t in context]
        best, node, low, high = 0, (0, self.size, 0), 1, len(context)
        while low <= high:
            length = (low + high) // 2
            lo, hi = self._followed(context[len(context) - length:])
            if lo < hi:
                best, node, low = length, (lo, hi, length), length + 1
            else:
                high = length - 1
        return best, node

    def children(self, node: tuple[int, int, int]) -> dict[int, tuple[int, tuple[int, int, int]]]:
        lo, hi, length = node
        if length == 0 and self._root_children is not None:
            return self._root_children
        starts = self.order[lo:hi].astype(np.int64) + length
        skip = int(len(starts) > 0 and starts[0] >= self.size)  # the text's end: nothing follows
        following = self.tokens[starts[skip:]]  # sorted: the suffixes agree on `length` tokens
        values, firsts, counts = np.unique(following, return_index=True, return_counts=True)
        kids = {int(v): (int(c), (lo + skip + int(f), lo + skip + int(f) + int(c), length + 1))
                for v, f, c in zip(values, firsts, counts)}
        if length == 0:
            self._root_children = kids
        return kids

    def match(self, context: Sequence[int]) -> tuple[int, dict[int, int]]:
        length, node = self.find(context)
        return length, {token: count for token, (count, _) in self.children(node).items()}


def suffix_array(tokens: np.ndarray, progress: bool = False) -> np.ndarray:
    """The start positions of ``tokens``' suffixes in sorted order, ``[n]`` int32, by prefix
    doubling: sort by the first ``2h`` tokens using the ranks of the first ``h`` (a shorter
    suffix sorts before the longer ones it begins). O(n log n) numpy work per doubling."""
    from tqdm.auto import tqdm

    n = len(tokens)
    rank = tokens.astype(np.int64)
    order = np.argsort(rank, kind="stable")
    h, bar = 1, tqdm(desc="suffix array (doublings)", disable=not progress, unit=" doublings")
    while n:
        second = np.full(n, -1, dtype=np.int64)
        second[:n - h] = rank[h:]
        order = np.lexsort((second, rank))
        first, later = rank[order], second[order]
        new = np.empty(n, dtype=np.int64)
        new[order] = np.cumsum(np.concatenate([[0], (first[1:] != first[:-1]) | (later[1:] != later[:-1])]))
        rank, h = new, 2 * h
        bar.update()
        if rank.max() == n - 1 or h >= n:
            break
    bar.close()
    return order.astype(np.int32)


def cache_dir() -> Path:
    """Where built indexes are kept: ``$XDG_CACHE_HOME`` (or ``~/.cache``)/speculative-decoding-course/suffix."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "speculative-decoding-course" / "suffix"


def corpus_index(tokenizer=None, files: list[Path] | None = None, progress: bool = True) -> CorpusIndex:
    """The suffix array of the corpus the shipped pair was trained on (grader/models/corpus.py's
    training files), tokenised by ``tokenizer`` (by default the shipped one). Built once
    (a minute of CPU: tokenising and sorting 3 million tokens, with a progress bar) and
    kept under ``cache_dir()``, in a file named by a hash of the files' contents and the
    tokenizer's vocabulary: a changed corpus or tokenizer builds a new one."""
    from grader.models import SHIPPED_TARGET
    from grader.models.corpus import corpus_files, encode, read

    if tokenizer is None:
        from transformers import AutoTokenizer
        tokenizer = AutoTokenizer.from_pretrained(SHIPPED_TARGET, local_files_only=True)
    files = corpus_files()[0] if files is None else files
    digest = hashlib.sha256(tokenizer.backend_tokenizer.to_str().encode())
    for path in files:
        digest.update(path.name.encode() + b"\0" + read(path).encode() + b"\0")
    path = cache_dir() / f"corpus-{digest.hexdigest()[:16]}.npz"
    if path.is_file():
        saved = np.load(path)
        return CorpusIndex(saved["tokens"], saved["order"])
    tokens = encode(files, tokenizer).numpy()
    index = CorpusIndex(tokens, progress=progress)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(partial, tokens=index.tokens, order=index.order)
    partial.replace(path)  # a build stopped halfway leaves no file that looks complete
    return index


# ---------------------------------------------------------------------------------------------
# The fast suffix loop: lesson 7's static cache and compiled step around this lesson's trees,
# the course's fastest exact loop on the shipped pair (`grader demo` runs it). Exercise
# `fast_suffix_speculative_generate`; the three helpers after it are provided complete.
# ---------------------------------------------------------------------------------------------
from lessons.fast import sequence_buffer, static_model  # noqa: E402  (lesson 7's provided parts)
from lessons.trees import attention_bias  # noqa: E402  (lesson 9's provided part)


@torch.inference_mode()
def fast_suffix_speculative_generate(inputs: list[int], target, corpus=None, max_nodes: int = 24,
                                     threshold: float = 0.1, logits_processor: LogitsProcessor = GreedyProcessor(),
                                     max_gen_len: int = 40, eos_tokens_id: int | list[int] = 1,
                                     compile: bool = True) -> tuple[list[int], float]:
    """``suffix_speculative_generate`` made fast as lesson 7 made lesson 4's loop fast: the
    target keeps one ``StaticCache`` (``static_model(target, "target", L + W, compile)``,
    ``W = max_nodes + 1``) and every round verifies ``[1, W]`` tokens in one compiled step
    (``tree_verify_step``), whatever the tree's size, so one graph serves every round. Same
    contract and law as ``suffix_speculative_generate``; ``compile=False`` runs it eagerly.

    - Prefill: ``target_model.prefill(ids, len(inputs), logits_processor, stop_ids)`` samples
      the first token (the cache then holds the prompt; its counter is ``end − 1``).
    - A round: the trees as in ``suffix_speculative_generate``; the ``N`` nodes are written at
      ``ids[0, end:end + N]`` and the ``W − 1 − N`` slots after them are padding.
      ``static_tree_attention(mask, depths, end − 1, W, cache length)`` gives the
      ``[1, 1, W, S]`` mask over the whole static cache (the text before ``end − 1``, then
      the root and the tree; a padding row sees the text and itself) and the positions
      ``[1, W]``; ``target_model.run(tree_verify_step, ...)`` returns p ``[W, V]``, and
      ``walk_deterministic_tree(p[:N + 1], parents, nodes)`` decides the round.
    - The kept path is scattered among the tree's cache slots: ``keep_path`` copies the
      path's keys and values into the slots right after the root, in place (a compiled
      graph keeps the cache's addresses), and moves the counter back to ``end + n``.
    """
    raise NotImplementedError


def static_tree_attention(mask: torch.Tensor, depths: torch.Tensor, start: int, width: int, length: int,
                          dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """``(attention_mask [1, 1, W, S], position_ids [1, W])`` for one fixed-width verification
    over a static cache of ``S = length`` slots whose counter is ``start``: row 0 (the root,
    the text's last token, at ``start``) and the ``N`` tree nodes (``mask [N, N]``,
    ``depths [N]`` from ``tree_layout``) then ``W − 1 − N`` padding rows. Every row sees the
    text ``[0, start)``; the root sees itself; node ``i`` the root, its ancestors and itself
    at position ``start + depths[i]``; a padding row itself (its output is never read).
    Slots past ``start + W`` (stale keys of earlier rounds) are hidden from all."""
    count, device = mask.shape[0], mask.device
    allowed = torch.zeros(width, length, dtype=torch.bool, device=device)
    allowed[:, :start] = True
    block = torch.eye(width, dtype=torch.bool, device=device)
    block[1:count + 1, 0] = True
    block[1:count + 1, 1:count + 1] = mask
    allowed[:, start:start + width] = block
    positions = torch.full((width,), start + 1, dtype=torch.long, device=device)
    positions[0] = start
    positions[1:count + 1] = start + depths
    return attention_bias(allowed, dtype), positions[None]


def tree_verify_step(model, cache, tokens: torch.Tensor, positions: torch.Tensor, processor,
                     attention_mask: torch.Tensor) -> tuple[torch.Tensor]:
    """The compiled verification: one forward of tokens ``[1, W]`` at ``positions [1, W]``
    under ``attention_mask [1, 1, W, S]`` into ``cache`` (a ``StaticCache``), then the
    processor: ``(p [W, V],)``."""
    out = model(tokens, attention_mask=attention_mask, position_ids=positions, cache=cache, use_cache=True)
    return (processor(out.logits[0]),)


def keep_path(cache, start: int, rows: torch.Tensor, width: int) -> None:
    """After a verification of ``W = width`` rows at ``start``, keep the root and the
    accepted path: the keys and values of tree rows ``rows [n]`` (increasing, ``rows[i] ≥
    i + 1``) move to slots ``start + 1 … start + n``, and the counter to ``start + n + 1``.
    In place (``index_copy_`` of what ``index_select`` copied out): a compiled graph keeps
    the cache's addresses."""
    n = rows.shape[0]
    if n:
        source = start + rows
        dest = torch.arange(start + 1, start + n + 1, device=rows.device)
        for layer in cache.layers:
            layer.keys.index_copy_(2, dest, layer.keys.index_select(2, source))
            layer.values.index_copy_(2, dest, layer.values.index_select(2, source))
    cache.crop(-(width - 1 - n))
