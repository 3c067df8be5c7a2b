"""Lesson 12's fast suffix loop (solutions/suffix.py, ``fast_suffix_speculative_generate``), run
eagerly (``compile=False``: the same code the compiled step runs): greedy equals the target alone,
the same draws as the eager suffix loop under sampling, end tokens and lengths; and a path kept
without moving its keys and values is caught."""
import numpy as np
import pytest
import torch

from grader.models import SHIPPED_TARGET, load_model
from grader.models.corpus import held_out_prompts
from solutions import suffix
from solutions.autoregressive import autoregressive_generate
from solutions.sampling import GreedyProcessor, MultinomialProcessor

NEW_TOKENS = 48


@pytest.fixture(scope="module")
def shipped():
    """The shipped target, two held-out prompts, and a small corpus index built from other
    held-out text (so that some rounds match the corpus, others the text itself)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(SHIPPED_TARGET)
    prompts = held_out_prompts(tokenizer, 6)
    corpus = suffix.CorpusIndex(np.array([t for p in prompts[2:] for t in p], dtype=np.int32))
    return load_model(SHIPPED_TARGET, "cpu", torch.float32), prompts[:2], corpus


def fast(prompt, target, corpus, **kwargs):
    return suffix.fast_suffix_speculative_generate(prompt, target, corpus, compile=False, **kwargs)


def test_greedy_output_is_the_targets_alone_with_many_tokens_a_round(shipped):
    target, prompts, corpus = shipped
    for prompt in prompts:
        greedy = autoregressive_generate(prompt, target, max_gen_len=NEW_TOKENS, logits_processor=GreedyProcessor(),
                                         use_cache=True, eos_tokens_id=-1)
        ids, mean_accepted = fast(prompt, target, corpus, max_gen_len=NEW_TOKENS, eos_tokens_id=-1)
        assert ids == greedy
        assert mean_accepted > 1  # rounds kept paths, whose keys and values moved in the cache


def test_sampling_makes_the_eager_suffix_loops_draws(shipped):
    """The same trees, the same walk, p from the same logits: seeded alike, the two loops
    emit the same tokens (the eager loop's law is graded by its check)."""
    target, prompts, corpus = shipped
    processor = MultinomialProcessor(temperature=1.0)
    for seed, prompt in enumerate(prompts):
        torch.manual_seed(seed)
        reference = suffix.suffix_speculative_generate(prompt, target, corpus, logits_processor=processor,
                                                       max_gen_len=NEW_TOKENS, eos_tokens_id=-1)
        torch.manual_seed(seed)
        ids, mean_accepted = fast(prompt, target, corpus, logits_processor=processor, max_gen_len=NEW_TOKENS,
                                  eos_tokens_id=-1)
        assert ids == reference[0] and mean_accepted == pytest.approx(reference[1])


def test_it_stops_after_the_first_end_token_and_at_max_gen_len(shipped):
    target, prompts, corpus = shipped
    greedy = autoregressive_generate(prompts[0], target, max_gen_len=NEW_TOKENS, use_cache=True, eos_tokens_id=-1)
    stop = greedy[20]
    ids, _ = fast(prompts[0], target, corpus, max_gen_len=NEW_TOKENS, eos_tokens_id=[-1, stop])
    assert ids == greedy[:greedy.index(stop) + 1]
    for length in (1, 2, 7):
        assert fast(prompts[0], target, corpus, max_gen_len=length, eos_tokens_id=-1)[0] == greedy[:length]
    assert fast(prompts[0], target, corpus, max_gen_len=0) == ([], 0.0)


def test_a_path_kept_without_moving_its_cache_entries_is_caught(shipped, monkeypatch):
    """``keep_path`` that only moves the counter leaves a branch's keys in the wrong slots:
    the greedy output departs from the target's (the first test's check has the power)."""
    target, prompts, corpus = shipped
    monkeypatch.setattr(suffix, "keep_path", lambda cache, start, rows, width: cache.crop(-(width - 1 - len(rows))))
    outputs = [(fast(p, target, corpus, max_gen_len=NEW_TOKENS, eos_tokens_id=-1)[0],
                autoregressive_generate(p, target, max_gen_len=NEW_TOKENS, use_cache=True, eos_tokens_id=-1))
               for p in prompts]
    assert any(ids != greedy for ids, greedy in outputs)
