"""The acceptance rate divides by gamma per round, even where the round drafted fewer."""
EXERCISE = "speculative_generate"
MODULE = "speculative"
PATCHES = [(
    "drafted, accepted = drafted + k, accepted + n",
    "drafted, accepted = drafted + gamma, accepted + n",
)]
FIRST_HINT = "divides by gamma drafts in every round"
