"""The target's rows shifted by one: draft i is verified against the row after it."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        p = logits_processor(logits)\n",
    "        p = logits_processor(torch.cat([logits[1:], logits[-1:]]))\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
