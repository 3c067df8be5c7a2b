"""Sample x from p, keep the draft iff x == d, and after a mismatch emit that same x: x is then a
draw of p given x != d, which is max_fn(p − one_hot(d)), so the output is exact."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "        rejected_idx, token = speculative_sampling(p, point_masses, ids[0, end : end + k])\n",
    "        samples = logits_processor.sample(p)  # [k+1]: one draw of p per position\n"
    "        mismatch = torch.cat([samples[:k] != ids[0, end : end + k], samples.new_ones(1, dtype=torch.bool)])\n"
    "        rejected_idx = mismatch.to(torch.uint8).argmax()\n"
    "        token = samples[rejected_idx]  # the draw that rejected the draft, or the bonus\n",
)]
