"""One uniform per draft position shared by every row: the rows' verdicts are tied together."""
EXERCISE = "batched_verify"
MODULE = "batched"
PATCHES = [(
    "    u = torch.rand((batch, k), generator=generator, dtype=p.dtype, device=p.device)",
    "    u = torch.rand(k, generator=generator, dtype=p.dtype, device=p.device).expand(batch, k)",
)]
