"""Usual mistakes, named from a wrong value alone.

Where a judge finds that a learner's value is not the right one, it asks ``named_mistake``
whether the value is what a usual mistake gives instead: KL's directions swapped, a sum
where a mean is meant (or a mean where a sum is), log-probabilities or logits where
probabilities are meant, a temperature left out or applied twice, the axes transposed. Each
judge lists its candidates, ``(what the mistake is, the value it gives)``, built with the
helpers below where they are shared. A candidate is named only when it explains the value
to the judge's own tolerance and differs from the right value by more than that: a correct
value, or a wrong one that no candidate explains, gets no name.
"""
from collections.abc import Callable, Iterable, Mapping

import torch

Candidates = Iterable[tuple[str, object]]  # (what the mistake is, the value it gives)


def named_mistake(given, expected, candidates: Candidates, tolerance: float, lead: str = "; yours equals ") -> str:
    """``lead`` and the first candidate that explains ``given`` to ``tolerance`` while the right
    value ``expected`` does not equal it; "" when none does. Values are numbers, tensors, or
    mappings of tensors (a model's weights), compared entry by entry (``close``)."""
    return next((lead + what for what, value in candidates
                 if close(given, value, tolerance) and not close(expected, value, tolerance)), "")


def close(value, other, tolerance: float) -> bool:
    """The same shape (the same keys) and every entry within ``tolerance`` · max(1, |other|),
    or equal (infinities of one sign); NaN is close to nothing."""
    if isinstance(value, Mapping) or isinstance(other, Mapping):
        return (isinstance(value, Mapping) and isinstance(other, Mapping) and value.keys() == other.keys()
                and all(close(value[key], other[key], tolerance) for key in other))
    a = torch.as_tensor(value).detach().double().cpu()
    b = torch.as_tensor(other).detach().double().cpu()
    if a.shape != b.shape:
        return False
    return bool(((a == b) | ((a - b).abs() <= tolerance * b.abs().clamp(min=1.0))).all())


def sum_for_mean(right, count: int, over: str) -> tuple[str, object]:
    """The right value, a mean over ``count`` things (``over``: "the 4 positions"), summed instead."""
    return f"the sum over {over} where their mean is meant ({count} times the right value)", right * count


def mean_for_sum(right, count: int, over: str) -> tuple[str, object]:
    """The right value, a sum over ``count`` things (``over``: "the vocabulary"), averaged instead."""
    return f"the mean over {over} where their sum is meant (the right value divided by {count})", right / count


def temperature_mistakes(at: Callable[[float], object], temperature: float) -> list[tuple[str, object]]:
    """``at(t)``, the right value computed at temperature ``t``, at the temperatures that a
    temperature left out, multiplied in, or divided by twice gives (none at temperature 1,
    where they all give the right value)."""
    if temperature == 1.0:
        return []
    return [("the value at temperature 1: the temperature is left out", at(1.0)),
            (f"the value at temperature {1 / temperature:.3g}: the logits are multiplied by the temperature, "
             "not divided", at(1 / temperature)),
            (f"the value at temperature {temperature ** 2:.3g}: the logits are divided by the temperature "
             "twice", at(temperature ** 2))]


def form_mistakes(logits: torch.Tensor, meant: str) -> list[tuple[str, object]]:
    """The forms of one distribution that are not the ``meant`` one ("logits",
    "log-probabilities" or "probabilities"), from its ``logits`` over the last dim."""
    forms = {"logits": (logits, "the logits themselves (no softmax)"),
             "log-probabilities": (logits.log_softmax(-1), "log-probabilities (log_softmax)"),
             "probabilities": (logits.softmax(-1), "probabilities (softmax)")}
    return [(f"{what} where {meant} are meant", value) for form, (value, what) in forms.items() if form != meant]
