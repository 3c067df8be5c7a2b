"""The forward recorder's cache identities: a check counts the cache objects a loop used."""
import torch
from transformers import DynamicCache

from grader.observers import observation
from grader.observers.recording import RecordingModel


def fed_a_new_cache_each_time(recorder: RecordingModel, forwards: int) -> set:
    """The cache ids ``recorder`` records when each forward gets a cache that is freed after it."""
    for _ in range(forwards):
        recorder(torch.zeros(1, 1, dtype=torch.long), past_key_values=DynamicCache())
    return {f.cache_id for f in recorder.forwards}


def test_in_a_check_each_new_cache_counts_once_whatever_ids_python_reuses():
    in_check = RecordingModel(lambda ids, **kwargs: None, observation.Observation(observation.REPLAY))
    assert len(fed_a_new_cache_each_time(in_check, 6)) == 6


def test_outside_a_check_no_cache_is_kept_alive():
    """The benchmarks record many runs: holding each run's cache would hold its memory."""
    bench = RecordingModel(lambda ids, **kwargs: None)
    fed_a_new_cache_each_time(bench, 6)
    assert bench.caches == {}
