"""Every draft of a round is predicted from the text alone, not from the text and the drafts before it."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        token = storage.next_token(text + drafts)\n",
    "        token = storage.next_token(text)\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
