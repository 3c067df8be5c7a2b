"""Ties between continuations go to the one seen last instead of the one seen first."""
EXERCISE = "ngram"
MODULE = "ngram"
SLOW = "11.2 s of CI's time; ngram keeps ngram_unknown_is_zero and its other mutants in the default run"
PATCHES = [(
    "                return max(seen, key=seen.get)",
    "                return max(reversed(seen), key=seen.get)",
)]
