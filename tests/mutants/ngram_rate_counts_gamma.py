"""The acceptance rate counts gamma drafts per round, even where a round drafted fewer."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        drafted, accepted = drafted + k, accepted + n\n",
    "        drafted, accepted = drafted + gamma, accepted + n\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
