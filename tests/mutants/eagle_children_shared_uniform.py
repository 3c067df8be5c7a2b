"""One uniform decides every child: their acceptances are dependent, so a later child is reached only when u is large, and then accepted more often than r_i(c_i)."""
EXERCISE = "deterministic_children"
MODULE = "eagle"
PATCHES = [(
    """    u = torch.rand(m, generator=generator, dtype=mass.dtype, device=mass.device)
""",
    """    u = torch.rand(1, generator=generator, dtype=mass.dtype, device=mass.device).expand(m)
""",
)]
