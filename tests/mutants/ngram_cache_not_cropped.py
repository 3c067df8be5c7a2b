"""The target's cache is never cropped: rejected drafts stay in it."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        roll_back(cache, end - 1)\n",
    "",
)]
