"""No stop after a rejection: rejected_idx counts every accepted draft, even those after a rejection."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("    rejected_idx = with_sentinel.to(torch.uint8).argmax()\n",
            "    rejected_idx = (~rejected).sum()\n")]
