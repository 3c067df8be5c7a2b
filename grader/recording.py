"""A model wrapper that records what every forward is fed, to check cache discipline."""
from dataclasses import dataclass


@dataclass
class Forward:
    fed: int  # tokens in this forward's input_ids
    cached: int  # tokens already in the cache it was given (0 without a cache)


class RecordingModel:
    """Behaves like the wrapped causal LM; ``forwards`` lists what each call was fed."""

    def __init__(self, model):
        self.model = model
        self.forwards: list[Forward] = []

    def __call__(self, input_ids=None, *args, **kwargs):
        if input_ids is None:
            input_ids = kwargs.pop("input_ids")
        cache = kwargs.get("cache", kwargs.get("past_key_values"))
        cached = cache.get_seq_length() if hasattr(cache, "get_seq_length") else 0
        self.forwards.append(Forward(fed=input_ids.shape[-1], cached=cached))
        return self.model(input_ids, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.model, name)
