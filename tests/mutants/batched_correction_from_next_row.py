"""A row's correction is drawn from the residual of the row before it in the batch."""
EXERCISE = "batched_verify"
MODULE = "batched"
PATCHES = [(
    "    candidates = torch.cat([max_fn(target_dists[:, :k] - proposal_dists), target_dists[:, k:]], dim=1)",
    "    candidates = torch.cat([max_fn(target_dists[:, :k] - proposal_dists).roll(1, dims=0),\n"
    "                            target_dists[:, k:]], dim=1)",
)]
