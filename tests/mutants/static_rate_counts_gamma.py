"""The acceptance rate divides by gamma drafts a round, also in the last, shorter rounds that draft k < gamma."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [("drafted, accepted = drafted + k, accepted + n", "drafted, accepted = drafted + gamma, accepted + n")]
FIRST_HINT = "divides by gamma drafts in every round"
