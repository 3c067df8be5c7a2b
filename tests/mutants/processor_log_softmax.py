"""Processors return log_softmax, log-probabilities, where probabilities are meant."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [("        return torch.softmax(self._filter(logits), dim=-1)",
            "        return torch.log_softmax(self._filter(logits), dim=-1)")]
NAMED = "log-probabilities (log_softmax) where probabilities are meant"
