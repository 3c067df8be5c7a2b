"""Every sibling is tested against p itself: the residual is not updated between siblings (only the final token comes from max_fn(p - q))."""
EXERCISE = "multi_draft"
MODULE = "trees"
PATCHES = [(
    """    residuals = [target_dist]
    for _ in range(m):
        residuals.append(max_fn(residuals[-1] - proposal_dist))
""",
    """    residuals = [target_dist] * m + [max_fn(target_dist - proposal_dist)]
""",
)]
