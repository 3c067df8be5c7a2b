"""One uniform drawn for all k drafts of a round instead of one each: every draft's own
acceptance still has probability min(1, p/q), but the drafts are accepted together
(draft i iff u < its ratio, the same u for every i), so the round's law is wrong."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("u = torch.rand(k, generator=generator, dtype=p.dtype, device=p.device)",
            "u = torch.rand(1, generator=generator, dtype=p.dtype, device=p.device).expand(k)")]
SLOW = "one of the longest verifier mutants, 6-13 s in CI: its exercise keeps others by default"
