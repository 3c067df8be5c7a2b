"""A row that rejects no draft gets rejected_idx 0 instead of k: argmax over the rejections without the "none rejected" column."""
EXERCISE = "batched_verify"
MODULE = "batched"
PATCHES = [("    with_sentinel = torch.cat([rejected, rejected.new_ones(batch, 1)], dim=1)\n"
            "    rejected_idx = with_sentinel.to(torch.uint8).argmax(dim=1)  # [B]\n",
            "    rejected_idx = rejected.to(torch.uint8).argmax(dim=1)  # [B]\n")]
FIRST_HINT = "(none rejected)"
