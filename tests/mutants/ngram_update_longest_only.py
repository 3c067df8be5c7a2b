"""update counts a token after the longest context only, so shorter contexts never learn it."""
EXERCISE = "ngram"
MODULE = "ngram"
SLOW = "11.6 s of CI's time; ngram keeps ngram_unknown_is_zero and its other mutants in the default run"
PATCHES = [(
    "        for length in range(1, min(self.n - 1, len(context)) + 1):\n",
    "        for length in range(min(self.n - 1, len(context)), min(self.n - 1, len(context)) + 1):\n",
)]
