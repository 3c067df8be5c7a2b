"""What each call of a feature head's decoder (lesson 11) was fed: pairs and cache length."""
import torch

from grader.observers import observation
from grader.observers.observation import Observer


def feed(entry) -> list:
    """``[pairs fed, pairs its cache held]`` from a runner's entry, checked (ValueError
    otherwise); either may be None, for what a call did not show."""
    if type(entry) is not list or len(entry) != 2:
        raise ValueError("an observed head call is not a pair [pairs fed, pairs cached]")
    return [None if value is None else observation.count(value) for value in entry]


class HeadFeeds(Observer):
    """While ``watch(head)`` holds, ``feeds`` gets ``[pairs fed, pairs its cache held]`` for
    each call of ``head.decoder``, made by a forward pre-hook before the call runs (so a call
    that raises is logged too), and sent to the decider at once."""

    streamed = True

    def __init__(self, run: observation.Observation | None = None):
        super().__init__(run)
        self.feeds: list[list] = []

    def append(self, entry) -> None:
        self.feeds.append(feed(entry))

    def record(self, module, args, kwargs) -> None:
        if not self.watching():
            return
        embeds, cache = kwargs.get("inputs_embeds"), kwargs.get("cache", kwargs.get("past_key_values"))
        try:
            held = int(cache.get_seq_length()) if cache is not None else None
        except Exception:  # the learner's cache object: what it cannot say is not recorded
            held = None
        fed = embeds.shape[1] if isinstance(embeds, torch.Tensor) and embeds.dim() == 3 else None
        self.add([fed, held])

    def watch(self, head) -> "torch.utils.hooks.RemovableHandle":
        """Start recording ``head.decoder``'s calls; ``.remove()`` the handle to stop."""
        return head.decoder.register_forward_pre_hook(self.record, with_kwargs=True)
