"""A round that rejects no draft gets rejected_idx 0 instead of k: argmax over the rejections without the "none rejected" entry."""
EXERCISE = "speculative_sampling"
MODULE = "verification"
PATCHES = [("    with_sentinel = torch.cat([rejected, rejected.new_ones(1)])\n"
            "    rejected_idx = with_sentinel.to(torch.uint8).argmax()\n",
            "    rejected_idx = rejected.to(torch.uint8).argmax()\n")]
FIRST_HINT = "(none rejected)"
