"""Greedy scored softly: greedy_match draws the token from the target row instead of its argmax."""
EXERCISE = "greedy_match"
MODULE = "verification"
PATCHES = [("    return rejected_idx, best.index_select(0, rejected_idx.view(1))[0]\n",
            "    return rejected_idx, torch.multinomial(target_dists[rejected_idx], 1)[0]\n")]
