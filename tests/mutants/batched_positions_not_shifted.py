"""Positions are column indices: a left-padded row's tokens sit at shifted positions."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [(
    "        positions = (self.mask.cumsum(dim=1) - 1).clamp(min=0)",
    "        positions = torch.arange(self.mask.shape[1], device=self.mask.device).expand_as(self.mask)",
)]
FIRST_HINT = "positions must count each row's real tokens"
