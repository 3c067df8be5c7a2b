"""The processors check's expected values: the reference processors' distributions."""
import torch

from grader.judges import mistakes
from grader.judged.verifiers import Distributions, Recorder
from solutions import sampling as reference


def compare(check: Recorder, judged: Distributions) -> None:
    """Require ``probs`` (float64) to be the reference ``name(**kwargs)``'s distribution of
    ``logits`` to 1e-5; show the worst entries."""
    label, name, kwargs, logits, probs = judged.label, judged.name, judged.kwargs, judged.logits, judged.probs
    expected = getattr(reference, name)(**kwargs)(logits)
    error = (probs - expected).abs()
    rows = [["row", "token", "yours", "expected"]]
    for flat in error.flatten().argsort(descending=True)[:5].tolist():
        r, t = divmod(flat, expected.shape[-1])
        if error[r, t] > 1e-5:
            rows.append([str(r), str(t), f"{probs[r, t]:.4f}", f"{expected[r, t]:.4f}"])
    check.require(f"{label} distribution", len(rows) == 1,
                  f"differs from the exact distribution by up to {error.max():.4f}"
                  f"{named_mistake(name, kwargs, logits, probs)}", judged.hint, rows)


def named_mistake(name: str, kwargs: dict, logits: torch.Tensor, probs: torch.Tensor) -> str:
    """"; yours equals <mistake>" where ``probs`` is what a usual mistake gives: the reference's
    distribution at another temperature, or for greedy a softmax; "" otherwise."""
    def at(temperature: float) -> torch.Tensor:
        return getattr(reference, name)(**dict(kwargs, temperature=temperature))(logits)

    if name == "GreedyProcessor":
        candidates = [("the softmax of the logits: greedy is a one-hot distribution on the argmax", logits.softmax(-1))]
    else:
        candidates = mistakes.temperature_mistakes(at, kwargs.get("temperature", 1.0))
    return mistakes.named_mistake(probs, at(kwargs.get("temperature", 1.0)), candidates, 1e-5)


def unnormalised(check: Recorder, judged: Distributions) -> None:
    """Stop the check: the rows of ``probs`` do not sum to 1. Name what they are when a usual
    mistake explains them: the scaled logits or their log_softmax (no softmax, or the log
    one), a softmax over the first dim (the axes mixed up), or the kept tokens'
    probabilities not renormalised after a filter."""
    label, name, kwargs, logits, probs = judged.label, judged.name, judged.kwargs, judged.logits, judged.probs
    expected = getattr(reference, name)(**kwargs)(logits)
    scaled = logits / kwargs.get("temperature", 1.0)
    candidates = mistakes.form_mistakes(scaled, "probabilities") + [
        ("a softmax over the first dim (across the rows), not over the last (the vocabulary)", scaled.softmax(0)),
        ("the kept tokens' probabilities at the temperature, not renormalised after the filter",
         torch.where(expected > 0, scaled.softmax(-1), 0.0))]
    check.fail(f"{label} normalisation", f"rows sum to {[round(s, 4) for s in probs.sum(-1).tolist()]}; every row "
               f"must sum to 1{mistakes.named_mistake(probs, expected, candidates, 1e-5)}", judged.hint)
