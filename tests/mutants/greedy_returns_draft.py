"""greedy_match returns the rejected draft itself instead of the target's argmax there."""
EXERCISE = "greedy_match"
MODULE = "verification"
PATCHES = [("    return rejected_idx, best.index_select(0, rejected_idx.view(1))[0]\n",
            "    return rejected_idx, torch.cat([candidate_tokens, best[k:]])[rejected_idx]\n")]
NAMED = "the rejected draft itself returned as the token"
