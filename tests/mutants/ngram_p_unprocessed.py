"""The drafts are verified against softmax(logits): temperature and top-k are ignored."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        p = logits_processor(logits)\n",
    "        p = torch.softmax(logits, dim=-1)\n",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
