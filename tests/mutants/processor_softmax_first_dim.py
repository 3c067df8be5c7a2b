"""Processors take the softmax over the first dim (across rows), not the last (the vocabulary)."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [("        return torch.softmax(self._filter(logits), dim=-1)",
            "        return torch.softmax(self._filter(logits), dim=0)")]
NAMED = "a softmax over the first dim"
