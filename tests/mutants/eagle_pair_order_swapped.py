"""The pair is fused as [embedding ; feature] instead of [feature ; embedding]: fc's halves read the wrong inputs."""
EXERCISE = "feature_draft"
MODULE = "eagle"
PATCHES = [(
    """    pairs = torch.cat([features, head.embed(tokens)], dim=-1)  # [1, n, 2d]
""",
    """    pairs = torch.cat([head.embed(tokens), features], dim=-1)
""",
)]
FIRST_HINT = "the pair's halves are swapped"
