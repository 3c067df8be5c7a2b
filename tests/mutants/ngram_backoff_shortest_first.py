"""The storage backs off the wrong way: the shortest context is looked up first."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        for length in range(min(self.n - 1, len(context)), 0, -1):\n",
    "        for length in range(1, min(self.n - 1, len(context)) + 1):\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
