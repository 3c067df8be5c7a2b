"""The tree family's judged values (tree_attention, dynamic_tree and suffix_index): the one
frozen dataclass each judge takes, built by its check, read by its judge. suffix_tree's are in
grader/judged/suffix_tree.py.
"""
from dataclasses import dataclass
from typing import Any

import torch


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


Answer = tuple[list[int], list[int], tuple[int, dict[int, int]]]  # (text, context, what match returned)


@dataclass(frozen=True)
class Answers:
    """suffix_index's judge's argument: every query of the case ``name``, in order."""
    name: str
    asked: list[Answer]
