"""Last rejection instead of the first: the round stops at the last rejected draft."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("    rejected_idx = with_sentinel.to(torch.uint8).argmax()\n",
            "    last = k - 1 - rejected.flip(0).to(torch.uint8).argmax()\n"
            "    rejected_idx = torch.where(rejected.any(), last, k)\n")]
SLOW = "one of the longest verifier mutants, 6-8 s in CI: its exercise keeps others by default"
