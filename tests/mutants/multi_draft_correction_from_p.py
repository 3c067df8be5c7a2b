"""When every sibling is rejected, the token is drawn from p instead of the final residual r_m."""
EXERCISE = "multi_draft"
MODULE = "trees"
PATCHES = [("sample(r[m], generator)", "sample(target_dist, generator)")]
