"""No stop after a rejection: rejected_idx counts every accepted draft, even those after a rejection."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("    rejected_idx = with_sentinel.to(torch.uint8).argmax()\n",
            "    rejected_idx = (~rejected).sum()\n")]
SLOW = "one of the longest verifier mutants, 6-8 s in CI: its exercise keeps others by default"
