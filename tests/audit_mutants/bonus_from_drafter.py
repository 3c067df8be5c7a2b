"""When every draft is accepted, the bonus token is drawn from the drafter's next law instead of the target's."""
EXERCISES = ("audit",)
MODULE = "speculative"
PATCHES = [(
    "        rejected_idx, token = speculative_sampling(p, q, ids[0, end : end + k])\n",
    "        rejected_idx, token = speculative_sampling(p, q, ids[0, end : end + k])\n"
    "        if rejected_idx == k:\n"
    "            q_next = logits_processor(forward(drafter, ids, end + k, drafter_cache, rows=1))[0]\n"
    "            token = logits_processor.sample(q_next)\n",
)]
