"""Drafts verified with greedy_match whatever the processor: under sampling a draft is kept iff it is the argmax."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [
    ("\nfrom solutions.verification import speculative_sampling\n",
     "\nfrom solutions.verification import greedy_match\n"),
    ("        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n",
     "        rejected_idx, token = greedy_match(p, ids[0, end : end + k])\n"),
]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
