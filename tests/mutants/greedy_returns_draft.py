"""greedy_match returns the rejected draft itself instead of the target's argmax there."""
EXERCISE = "greedy_match"
MODULE = "verification"
PATCHES = [("    return rejected_idx, best[rejected_idx]\n",
            "    return rejected_idx, torch.cat([candidate_tokens, best[k:]])[rejected_idx]\n")]
