"""The tree family's judged values (tree_attention, dynamic_tree, suffix_tree and
suffix_index): the one frozen dataclass each judge takes, built by its check, read by its
judge, and suffix_tree's case, which its judge rebuilds the index from.
"""
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from solutions.suffix import CorpusIndex, SuffixIndex


@dataclass(frozen=True)
class Layout:
    """tree_attention's compare judge's argument: the learner's layout of the tree ``name`` of
    ``parents``, ``mask`` ``[N, N]`` bool and ``depths`` ``[N]`` long, on the CPU."""
    name: str
    parents: list[int]
    mask: torch.Tensor
    depths: torch.Tensor


@dataclass(frozen=True)
class Forwards:
    """tree_attention's forwards judge's argument: the layouts to read in one forward after
    ``text``, on the tiny pair of ``model_seed``."""
    layouts: list[Layout]
    text: list[int]
    model_seed: int


@dataclass(frozen=True)
class Grown:
    """dynamic_tree's judge's argument: the head, the text's pairs it read, the processor,
    ``(depth, top_k, total)``, the learner's tree's ``(parent, token)`` and its cache's
    length after."""
    case: str
    head: Any
    features: torch.Tensor
    tokens: torch.Tensor
    processor: Any
    shape: tuple[int, int, int]
    nodes: list[tuple[int, int]]
    cached: int


@dataclass(frozen=True)
class TreeCase:
    """suffix_tree's case: the text indexed, the context matched and the tree's limits."""
    name: str
    text: tuple[int, ...]
    context: tuple[int, ...]
    max_nodes: int = 24
    threshold: float = 0.1
    max_depth: int = 16
    corpus: bool = False  # a CorpusIndex of the text, in place of a SuffixIndex

    def index(self):
        return CorpusIndex(np.array(self.text, dtype=np.int32)) if self.corpus else SuffixIndex(self.text)

    def arguments(self) -> tuple:
        return list(self.context), self.max_nodes, self.threshold, self.max_depth


@dataclass(frozen=True)
class Tree:
    """suffix_tree's judge's argument: a case and the learner's tree on it."""
    case: TreeCase
    parents: list[int]
    tokens: list[int]
    scores: list[float]


Answer = tuple[list[int], list[int], tuple[int, dict[int, int]]]  # (text, context, what match returned)


@dataclass(frozen=True)
class Answers:
    """suffix_index's judge's argument: every query of the case ``name``, in order."""
    name: str
    asked: list[Answer]
