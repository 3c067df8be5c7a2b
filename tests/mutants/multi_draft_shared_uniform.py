"""One uniform drawn for all m drafts instead of one each: the drafts' acceptances become
dependent (a draft is accepted iff u < its ratio, the same u for every draft)."""
EXERCISE = "multi_draft"
MODULE = "trees"
PATCHES = [("u = torch.rand(m, generator=generator, dtype=q.dtype, device=q.device)",
            "u = torch.rand(1, generator=generator, dtype=q.dtype, device=q.device).expand(m)")]
SLOW = "one of the longest verifier mutants, 6-7 s in CI: its exercise keeps others by default"
