"""Filters zero the dropped tokens' probabilities without renormalising the kept ones."""
EXERCISE = "processors"
MODULE = "sampling"
PATCHES = [("        return torch.softmax(self._filter(logits), dim=-1)",
            "        return torch.softmax(logits, dim=-1) * (self._filter(logits) > float(\"-inf\"))")]
NAMED = "not renormalised after the filter"
