"""Lesson 12's provided indexes: the corpus's suffix array answers as the suffix automaton and
brute force do, and its cache on disk is reused, and rebuilt when the corpus or the tokenizer
changes. (The exercises themselves are graded by grader/checks/suffix_*.py.)"""
import random

import numpy as np
import pytest
from transformers import AutoTokenizer

from grader.judges.suffix_index import brute_force
from grader.models import SHIPPED_TARGET
from solutions import suffix
from solutions.trees import tree_layout


def test_the_automaton_and_the_suffix_array_answer_as_brute_force():
    rng = random.Random(0)
    for _ in range(60):
        vocab = rng.choice([2, 3, 5])
        text = [rng.randrange(vocab) for _ in range(rng.randrange(1, 40))]
        automaton = suffix.SuffixIndex(text[: len(text) // 2])
        automaton.extend(text[len(text) // 2:])
        array = suffix.CorpusIndex(np.array(text))
        for _ in range(8):
            context = [rng.randrange(vocab + 1) for _ in range(rng.randrange(0, 8))]
            expected = brute_force(text, context)
            assert automaton.match(context) == expected == array.match(context), (text, context)
        context = text[-5:]  # the two indexes grow the same tree
        assert suffix.speculation_tree(automaton, context, 10, 0.05) == suffix.speculation_tree(array, context, 10, 0.05)


def test_a_tree_is_what_tree_layout_takes_and_adapts_to_the_match():
    index = suffix.SuffixIndex([1, 2, 3, 4, 5, 0] * 4 + [7, 8, 9])
    parents, tokens, scores = suffix.speculation_tree(index, [0, 1, 2], max_nodes=8, threshold=0.5)
    mask, depths = tree_layout(parents)
    assert tokens[:3] == [3, 4, 5] and depths.tolist() == list(range(1, len(parents) + 1))  # a confident chain
    assert scores == sorted(scores, reverse=True) and mask.shape == (len(parents), len(parents))
    assert suffix.speculation_tree(index, [6], max_nodes=8, threshold=0.5) == ([], [], [])  # no match: no tree


@pytest.fixture(scope="module")
def tokenizer():
    return AutoTokenizer.from_pretrained(SHIPPED_TARGET, local_files_only=True)


def test_the_corpus_index_is_cached_and_rebuilt_when_its_corpus_or_tokenizer_changes(tmp_path, monkeypatch,
                                                                                     tokenizer):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    files[0].write_text("def f(x):\n    return x + 1\n" * 5)
    files[1].write_text("import os\nprint(os.sep)\n")
    built = suffix.corpus_index(tokenizer, files, progress=False)
    cached = list(suffix.cache_dir().glob("corpus-*.npz"))
    assert len(cached) == 1 and not list(suffix.cache_dir().glob("*.partial*"))

    def no_build(*args):
        raise AssertionError("built again although nothing changed")
    with monkeypatch.context() as patched:
        patched.setattr(suffix, "suffix_array", no_build)
        again = suffix.corpus_index(tokenizer, files, progress=False)
    assert again.tokens.tolist() == built.tokens.tolist() and again.order.tolist() == built.order.tolist()

    files[1].write_text("import sys\nprint(sys.path)\n")  # the corpus changed
    suffix.corpus_index(tokenizer, files, progress=False)
    tokenizer.add_tokens(["frobnicate"])  # the tokenizer changed
    suffix.corpus_index(tokenizer, files, progress=False)
    assert len(list(suffix.cache_dir().glob("corpus-*.npz"))) == 3
