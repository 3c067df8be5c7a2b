"""The acceptance uniform reused: the correction is drawn by inverse CDF with the u that rejected."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("    return rejected_idx, sample(candidates.index_select(0, rejected_idx.view(1))[0], generator)\n",
            "    reused = torch.cat([u, u.new_zeros(1)])[rejected_idx]\n"
            "    cdf = candidates[rejected_idx].cumsum(-1)\n"
            "    token = torch.searchsorted(cdf, reused.unsqueeze(-1)).clamp(max=cdf.shape[-1] - 1)[0]\n"
            "    bonus = sample(candidates[rejected_idx], generator)\n"
            "    return rejected_idx, torch.where(rejected_idx == k, bonus, token)\n")]
SLOW = "one of the longest verifier mutants, 6-13 s in CI: its exercise keeps others by default"
