"""mean_accepted counts every token a round emits, the target's own token included."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("rounds, accepted = rounds + 1, accepted + n\n", "rounds, accepted = rounds + 1, accepted + n + 1\n")]
