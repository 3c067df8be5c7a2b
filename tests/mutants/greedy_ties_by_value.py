"""Ties by value: greedy_match accepts any draft whose probability equals the row's maximum."""
EXERCISE = "greedy_match"
MODULE = "verification"
PATCHES = [("mismatch = torch.cat([best[:k] != candidate_tokens,",
            "drafted = target_dists[:k].gather(-1, candidate_tokens.unsqueeze(-1)).squeeze(-1)\n"
            "    mismatch = torch.cat([drafted < target_dists[:k].amax(-1),")]
