"""End tokens looked for only in a round's last token, not among its accepted drafts."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "            if kept in stop_ids:\n",
    "            if kept in stop_ids and i == n:\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
