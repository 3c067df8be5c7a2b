"""Why a greedy run in bfloat16 can differ from greedy decoding, told where it happens.

bfloat16 keeps 8 significant bits: between 4 and 8 its representable numbers are 1/32
apart, between 16 and 32 they are 1/8 apart. A forward that scores γ + 1 tokens at once
and one that scores a single token add the same products in another order, so they round
differently; each logit can move by a spacing or two. Where the two largest logits are
that close, the argmax can flip, and from there on the two texts differ, both of them
greedy decodings of the model up to rounding. ``first_divergence`` finds the first position
where two outputs differ and measures the margin there in spacings of bfloat16 at that
size. (In float32 the spacing is 65,536 times smaller: the course asserts greedy equality
in float32.)
"""
import math
from dataclasses import dataclass

import torch

NEAR_TIE_SPACINGS = 4  # each of the two logits may move by a spacing or two between two roundings


def spacing(value: float, dtype: torch.dtype = torch.bfloat16) -> float:
    """The gap between adjacent numbers of ``dtype`` at ``|value|``: ``eps · 2^floor(log2 |value|)``."""
    info = torch.finfo(dtype)
    magnitude = max(abs(value), info.tiny)
    return info.eps * 2.0 ** math.floor(math.log2(magnitude))


@dataclass(frozen=True)
class Divergence:
    """The first generated position where two outputs differ, and the model's logits there."""
    position: int  # index into the generated ids
    ours: int  # the token the loop under study chose
    greedy: int  # the token greedy decoding chose
    top_tokens: tuple[int, int]  # the model's two most likely tokens there
    top_logits: tuple[float, float]
    dtype: torch.dtype

    @property
    def margin(self) -> float:
        return self.top_logits[0] - self.top_logits[1]

    @property
    def spacing(self) -> float:
        return spacing(self.top_logits[0], self.dtype)

    @property
    def spacings(self) -> float:
        """The margin in spacings of the model's dtype at the top logit's size."""
        return self.margin / self.spacing

    @property
    def near_tie(self) -> bool:
        return set(self.top_tokens) == {self.ours, self.greedy} and self.spacings <= NEAR_TIE_SPACINGS

    def describe(self) -> str:
        name = str(self.dtype).removeprefix("torch.")
        lines = [f"first difference at generated token {self.position}: this loop chose {self.ours}, "
                 f"greedy decoding {self.greedy}",
                 f"the model's two top logits there ({name}, one forward over the text): "
                 f"{self.top_tokens[0]} at {self.top_logits[0]:.5g}, {self.top_tokens[1]} at "
                 f"{self.top_logits[1]:.5g}; margin {self.margin:.4g} = {self.spacings:.1f} spacings of "
                 f"{name} at that size ({self.spacing:.4g})"]
        if self.near_tie:
            lines.append(f"a near-tie (within {NEAR_TIE_SPACINGS} spacings): rounding in another order "
                         "flips it, and both texts are greedy decodings up to rounding")
        else:
            lines.append("not a near-tie between the two tokens chosen: rounding does not explain "
                         "this difference; look for a bug")
        return "\n".join(lines)


@torch.inference_mode()
def first_divergence(model, prompt: list[int], ours: list[int], greedy: list[int]) -> Divergence | None:
    """Where ``ours`` first differs from ``greedy`` (both generated after ``prompt``), with
    ``model``'s top two logits at that position from one forward over ``prompt`` and the
    common tokens (``[1, len(prompt) + position] -> [V]``, in the model's dtype); None
    when one output is a prefix of the other."""
    position = next((i for i, (a, b) in enumerate(zip(ours, greedy)) if a != b), None)
    if position is None:
        return None
    context = torch.tensor([prompt + greedy[:position]], device=model.device)
    top = model(context).logits[0, -1].float().topk(2)
    return Divergence(position, ours[position], greedy[position], tuple(top.indices.tolist()),
                      tuple(top.values.tolist()), model.dtype)
