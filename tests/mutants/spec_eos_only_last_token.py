"""End tokens looked for only in a round's last token, not among its accepted drafts."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "    stops = torch.isin(block, stop_ids) & emitted\n",
    "    stops = torch.isin(block, stop_ids) & emitted\n"
    "    stops &= torch.arange(block.shape[0], device=block.device) == rejected_idx\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
