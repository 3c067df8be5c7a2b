"""The features of the accepted tokens come from a second target forward over them, instead of from the forward that verified them."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """        true_features[:, end - 1:end + n] = features[:, :n + 1]  # the accepted positions' features
""",
    """        again = DynamicCache()
        true_features[:, :end + n] = target_step(target, ids[:, :end + n], again)[0]
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
