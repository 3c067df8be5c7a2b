"""Processors return the filtered logits at the temperature, with no softmax."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [("        return torch.softmax(self._filter(logits), dim=-1)",
            "        return self._filter(logits)")]
NAMED = "the logits themselves (no softmax) where probabilities are meant"
