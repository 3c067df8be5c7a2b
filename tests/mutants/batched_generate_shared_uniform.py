"""The loop's verifier shares one uniform per draft position among the rows: rows are not independent."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [(
    "    u = torch.rand((batch, k), generator=generator, dtype=p.dtype, device=p.device)",
    "    u = torch.rand(k, generator=generator, dtype=p.dtype, device=p.device).expand(batch, k)",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
