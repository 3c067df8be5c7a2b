"""The loop resamples a rejected position from p instead of the residual max_fn(p - q)."""
EXERCISE = "batched_generate"
MODULE = "batched"
PATCHES = [(
    "torch.cat([max_fn(target_dists[:, :k] - proposal_dists), target_dists[:, k:]], dim=1)",
    "torch.cat([target_dists[:, :k], target_dists[:, k:]], dim=1)",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
