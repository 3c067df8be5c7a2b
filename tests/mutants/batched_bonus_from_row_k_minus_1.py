"""The bonus token comes from p_(k-1) instead of p_k."""
EXERCISE = "batched_verify"
MODULE = "batched"
PATCHES = [(
    "proposal_dists), target_dists[:, k:]], dim=1)",
    "proposal_dists), target_dists[:, k - 1 : k]], dim=1)",
)]
