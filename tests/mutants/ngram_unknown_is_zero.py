"""An unknown context predicts token 0 instead of reporting that the storage knows nothing."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "                return max(seen, key=seen.get)  # max keeps the first of equal counts\n        return None\n",
    "                return max(seen, key=seen.get)  # max keeps the first of equal counts\n        return 0\n",
)]
