"""update counts a token after the longest context only, so shorter contexts never learn it."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        for length in range(1, min(self.n - 1, len(context)) + 1):\n",
    "        for length in range(min(self.n - 1, len(context)), min(self.n - 1, len(context)) + 1):\n",
)]
