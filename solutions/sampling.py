"""Lesson 0 — logits processors: turn a model's logits into a distribution, then sample.

Every processor maps logits ``[..., V]`` to probabilities ``[..., V]`` over the last
dimension (``proc(logits)``) and draws one token id per row (``proc.sample(probs)``).
Speculative decoding applies the *same* processor to the drafter's and the target's
logits, so the output law it preserves is the law of the processed target distribution.

Exercise ``processors``: fill in every method that raises NotImplementedError, then run
``grader check processors``.
"""
import torch

__all__ = ["LogitsProcessor", "GreedyProcessor", "MultinomialProcessor", "TopKProcessor", "NucleusProcessor",
           "TopKNucleusProcessor"]


def probability_dtype(dtype: torch.dtype) -> torch.dtype:
    """Probabilities are computed in float64 for float64 logits, float32 otherwise."""
    return torch.float64 if dtype == torch.float64 else torch.float32


class LogitsProcessor:
    """Temperature, then ``_filter`` (top-k, top-p, …), then softmax.

    Subclasses override ``_filter(logits)``, which returns logits with removed tokens set
    to ``-inf``. Compute probabilities in ``probability_dtype(logits.dtype)`` so that
    bf16/fp16 models still give well-normalised distributions.
    """

    is_greedy = False  # True for GreedyProcessor: ask this, never the class (a loop is handed
    # the grader's processors, or another package's, as well as its own)

    def __init__(self, temperature: float = 1.0):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.temperature = temperature

    def __call__(self, logits: torch.Tensor) -> torch.Tensor:
        """logits ``[..., V]`` -> probabilities ``[..., V]``: softmax(_filter(logits / T)).

        Hint: convert with ``logits.to(probability_dtype(logits.dtype))`` first.
        """
        # BEGIN SOLUTION
        logits = logits.to(probability_dtype(logits.dtype)) / self.temperature
        return torch.softmax(self._filter(logits), dim=-1)
        # LESSON
        # raise NotImplementedError
        # END SOLUTION

    def _filter(self, logits: torch.Tensor) -> torch.Tensor:
        return logits

    def sample(self, probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """One token id per row: probs ``[..., V]`` -> LongTensor ``[...]``.

        Hint: ``torch.multinomial`` takes 1-D or 2-D input and keeps a trailing dim; or
        draw ``E ~ Exp(1)`` per entry (``torch.empty_like(probs).exponential_()``) and take
        ``argmax(probs / E)``, which picks i with probability ``probs[i]`` for any shape.
        """
        # BEGIN SOLUTION
        race = torch.empty_like(probs).exponential_(1.0, generator=generator)
        return (probs / race).argmax(dim=-1)
        # LESSON
        # raise NotImplementedError
        # END SOLUTION

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in vars(self).items())
        return f"{type(self).__name__}({params})"


class GreedyProcessor(LogitsProcessor):
    """A one-hot distribution on the argmax (the first one on ties); temperature has no effect.

    Treating greedy decoding as a point mass is what makes greedy speculative decoding exact:
    a draft is accepted with probability ``min(1, p/q) = p(d)``, i.e. iff it is the argmax.
    """

    is_greedy = True

    def __call__(self, logits: torch.Tensor) -> torch.Tensor:
        """logits ``[..., V]`` -> one-hot ``[..., V]`` (dtype ``probability_dtype``).

        Hint: ``torch.zeros(...).scatter_(-1, logits.argmax(-1, keepdim=True), 1.0)``.
        """
        # BEGIN SOLUTION
        best = logits.argmax(dim=-1, keepdim=True)
        probs = torch.zeros(logits.shape, dtype=probability_dtype(logits.dtype), device=logits.device)
        return probs.scatter_(-1, best, 1.0)
        # LESSON
        # raise NotImplementedError
        # END SOLUTION

    def sample(self, probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """probs ``[..., V]`` -> LongTensor ``[...]``: the argmax of each row."""
        # BEGIN SOLUTION
        return probs.argmax(dim=-1)
        # LESSON
        # raise NotImplementedError
        # END SOLUTION


class MultinomialProcessor(LogitsProcessor):
    """Plain sampling from ``softmax(logits / temperature)``: nothing to add here."""


class TopKProcessor(LogitsProcessor):
    """Keep the ``top_k`` largest logits; tokens tied with the k-th largest are all kept."""

    def __init__(self, temperature: float = 1.0, top_k: int = 20):
        super().__init__(temperature)
        if not (isinstance(top_k, int) and top_k >= 1):
            raise ValueError(f"top_k must be an int >= 1, got {top_k!r}")
        self.top_k = top_k

    def _filter(self, logits: torch.Tensor) -> torch.Tensor:
        return keep_top_k(logits, self.top_k)


class NucleusProcessor(LogitsProcessor):
    """Keep the smallest set of most likely tokens whose mass reaches ``top_p``."""

    def __init__(self, temperature: float = 1.0, top_p: float = 0.9):
        super().__init__(temperature)
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {top_p!r}")
        self.top_p = top_p

    def _filter(self, logits: torch.Tensor) -> torch.Tensor:
        return keep_top_p(logits, self.top_p)


class TopKNucleusProcessor(LogitsProcessor):
    """Top-k, then top-p on what is left."""

    def __init__(self, temperature: float = 1.0, top_k: int = 20, top_p: float = 0.9):
        super().__init__(temperature)
        TopKProcessor(temperature, top_k), NucleusProcessor(temperature, top_p)  # validate
        self.top_k, self.top_p = top_k, top_p

    def _filter(self, logits: torch.Tensor) -> torch.Tensor:
        return keep_top_p(keep_top_k(logits, self.top_k), self.top_p)


def keep_top_k(logits: torch.Tensor, k: int) -> torch.Tensor:
    """Logits ``[..., V]`` with every entry below the k-th largest set to ``-inf``.

    Ties with the k-th largest are kept; ``k >= V`` keeps everything.
    Hint: ``logits.topk(k, dim=-1).values[..., -1:]`` is the k-th largest of each row.
    """
    # BEGIN SOLUTION
    if k >= logits.shape[-1]:
        return logits
    kth = logits.topk(k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))
    # LESSON
    # raise NotImplementedError
    # END SOLUTION


def keep_top_p(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """Logits ``[..., V]`` with the tokens outside the nucleus set to ``-inf``.

    Token i is kept iff the probability mass of the tokens *strictly* more likely than i
    is below ``top_p``: the token that crosses the threshold stays, tied tokens stay or go
    together, the most likely token always stays, and ``top_p = 1`` keeps everything.
    Hint: sort the probabilities in descending order; the exclusive cumulative sum
    ``cumsum - sorted`` is the mass above each position (mind the ties).
    """
    # BEGIN SOLUTION
    if top_p >= 1:
        return logits
    probs = torch.softmax(logits, dim=-1)
    # mass_above[i] = Σ_j p_j [p_j > p_i]: sort once, then take the exclusive cumulative
    # sum at the first position of each tie group.
    sorted_probs, order = probs.sort(dim=-1, descending=True)
    exclusive = sorted_probs.cumsum(dim=-1) - sorted_probs
    first_of_tie = torch.searchsorted(-sorted_probs.contiguous(), -sorted_probs.contiguous(), side="left")
    mass_above_sorted = exclusive.gather(-1, first_of_tie)
    mass_above = torch.empty_like(probs).scatter_(-1, order, mass_above_sorted)
    return logits.masked_fill(mass_above >= top_p, float("-inf"))
    # LESSON
    # raise NotImplementedError
    # END SOLUTION
