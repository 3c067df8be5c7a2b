"""suffix_tree's judged values: its case, which both halves build the reference's index from
(its check hands the index to the learner's tree, its judge to the reference's), and its judge's
argument. A module of their own, apart from the tree family's (grader/judged/trees.py): the
index is the reference's SuffixIndex, which suffix_index's runner withholds, so no other
check's runner side may import it (grader/decider/reference.check_needs).
"""
from dataclasses import dataclass

import numpy as np

from solutions.suffix import CorpusIndex, SuffixIndex


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
