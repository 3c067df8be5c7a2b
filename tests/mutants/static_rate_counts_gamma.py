"""The acceptance rate divides by gamma drafts a round, also in the last, shorter rounds that draft k < gamma."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [("drafted, accepted = drafted + k, accepted + n", "drafted, accepted = drafted + gamma, accepted + n")]
SLOW = ("the longest mutant, 78 s in CI: it passes every eager property, so its run compiles on the shipped "
        "pair; the rate's hint it would show is the shared judge's, held by spec_rate_counts_gamma")
