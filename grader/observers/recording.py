"""A model wrapper that records what every forward is fed, to check cache discipline."""
from dataclasses import asdict, dataclass

from grader.observers import observation
from grader.observers.observation import Observer


@dataclass
class Forward:
    fed: int  # tokens in this forward's input_ids
    cached: int  # the cache's length (a StaticCache: its write position) before the forward
    positions: list[int] | None = None  # the position_ids (or cache_position) passed, if any
    cache_id: int | None = None  # id() of the cache object it was given
    cache_type: str = ""  # that object's class name
    rows: int = 1  # the batch size of input_ids


def forward(data) -> Forward:
    """A Forward from a runner's entry, every field checked (ValueError otherwise)."""
    if type(data) is not dict or not {"fed", "cached"} <= set(data) <= set(Forward.__dataclass_fields__):
        raise ValueError("an observed forward is not a record of Forward's fields")
    for name in ("fed", "cached", "rows"):
        observation.count(data.get(name, 1))
    if data.get("positions") is not None:
        observation.ints(data["positions"], "forward's positions")
    if type(data.get("cache_id", 0)) not in (int, type(None)) or type(data.get("cache_type", "")) is not str:
        raise ValueError("an observed forward's cache is not an id and a class name")
    return Forward(**data)


class RecordingModel(Observer):
    """Behaves like the wrapped causal LM; ``forwards`` lists what each call was fed. Each
    forward is logged before it runs (so a forward that raises is logged too) and, made
    with a check's run (``RecordingModel(model, check.observation)``), sent to the decider
    at once (grader/observers/observation.py)."""

    streamed = True

    def __init__(self, model, run: observation.Observation | None = None):
        super().__init__(run)
        self.model = model
        self.forwards: list[Forward] = []
        # in a check, every cache object a forward was given is kept alive while this model is:
        # a Forward names its cache by id(), which Python gives again to a new object once the
        # old one is freed (a loop that made a cache per row counted 3 or 4 caches by chance).
        # Outside a check (the benchmarks' many runs) nothing is kept: nothing counts caches there
        self.caches: dict[int, object] = {}

    def append(self, entry: dict) -> None:
        self.forwards.append(forward(entry["forward"]))

    def __call__(self, input_ids=None, *args, **kwargs):
        if input_ids is None:
            input_ids = kwargs.pop("input_ids")
        cache = kwargs.get("cache", kwargs.get("past_key_values"))
        if cache is not None and self.observation is not None:
            self.caches.setdefault(id(cache), cache)
        self.add(self.entry(input_ids, kwargs))
        return self.model(input_ids, *args, **kwargs)

    def entry(self, input_ids, kwargs) -> dict:
        """The log entry of one forward, as plain data."""
        return {"forward": asdict(_fed(input_ids, kwargs))}

    def __getattr__(self, name):
        return getattr(self.model, name)


def _fed(input_ids, kwargs) -> Forward:
    """What one forward is fed: ``input_ids`` [rows, fed] (or [fed]) and its keyword arguments."""
    cache = kwargs.get("cache", kwargs.get("past_key_values"))
    cached = int(cache.get_seq_length()) if hasattr(cache, "get_seq_length") else 0
    positions = kwargs.get("position_ids", kwargs.get("cache_position"))
    return Forward(
        fed=input_ids.shape[-1], cached=cached,
        positions=None if positions is None else positions.reshape(-1).tolist(),
        cache_id=None if cache is None else id(cache), cache_type=type(cache).__name__,
        rows=input_ids.shape[0] if input_ids.dim() > 1 else 1)
