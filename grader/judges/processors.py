"""The processors check's expected values: the reference processors' distributions."""
import torch

from grader.checks.harness import CheckRun
from solutions import sampling as reference


def compare(check: CheckRun, label: str, name: str, kwargs: dict, logits: torch.Tensor,
            probs: torch.Tensor, hint: str) -> None:
    """Require ``probs`` (float64) to be the reference ``name(**kwargs)``'s distribution of
    ``logits`` to 1e-5; show the worst entries."""
    expected = getattr(reference, name)(**kwargs)(logits)
    error = (probs - expected).abs()
    rows = [["row", "token", "yours", "expected"]]
    for flat in error.flatten().argsort(descending=True)[:5].tolist():
        r, t = divmod(flat, expected.shape[-1])
        if error[r, t] > 1e-5:
            rows.append([str(r), str(t), f"{probs[r, t]:.4f}", f"{expected[r, t]:.4f}"])
    check.require(f"{label} distribution", len(rows) == 1,
                  f"differs from the exact distribution by up to {error.max():.4f}"
                  f"{named_mistake(name, kwargs, logits, probs)}", hint, rows)


TEMPERATURE_MISTAKES = {  # what the distribution matches instead -> the settings that give it
    "the temperature is left out": lambda temperature: 1.0,
    "the logits are multiplied by the temperature, not divided": lambda temperature: 1 / temperature,
}


def named_mistake(name: str, kwargs: dict, logits: torch.Tensor, probs: torch.Tensor) -> str:
    """"; it is what you get when <mistake>" where ``probs`` is the reference's distribution
    at another temperature that a common mistake gives; "" otherwise."""
    temperature = kwargs.get("temperature", 1.0)
    if temperature == 1.0 or name == "GreedyProcessor":
        return ""
    for mistake, mistaken in TEMPERATURE_MISTAKES.items():
        other = getattr(reference, name)(**dict(kwargs, temperature=mistaken(temperature)))(logits)
        if torch.allclose(probs, other, atol=1e-5, rtol=0):
            return f"; it is what you get when {mistake}"
    return ""
