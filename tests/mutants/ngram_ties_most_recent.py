"""Ties between continuations go to the one seen last instead of the one seen first."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "                return max(seen, key=seen.get)",
    "                return max(reversed(seen), key=seen.get)",
)]
