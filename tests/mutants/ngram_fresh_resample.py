"""Sample x from p, keep the draft iff x == d, and on a mismatch draw a fresh token from p, which can be d again (d comes out with p(d) + (1 − p(d))·p(d))."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n",
    "        samples = logits_processor.sample(p)  # one draw of p per position\n"
    "        mismatch = torch.cat([samples[:k] != ids[0, end : end + k], samples.new_ones(1, dtype=torch.bool)])\n"
    "        rejected_idx = mismatch.to(torch.uint8).argmax()\n"
    "        token = logits_processor.sample(p[rejected_idx])  # fresh: may be the rejected draft again\n",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
