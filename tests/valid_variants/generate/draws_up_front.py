"""Every random number of a round's verification is drawn before its drafts: k uniforms for
the accept tests and one exponential race for the round's own token. Another order of
random draws, a plain loop for the accept tests; the law is the same."""
EXERCISES = ("speculative_generate", "kv_cache")
MODULE = "speculative"
PATCHES = [
    ("        q_rows = draft(drafter, ids, end, k, logits_processor, drafter_cache)\n",
     "        uniforms = torch.rand(k, dtype=torch.float64, device=device)\n"
     "        race = torch.empty(target.config.vocab_size, dtype=torch.float64, device=device).exponential_()\n"
     "        q_rows = draft(drafter, ids, end, k, logits_processor, drafter_cache)\n"),
    ("        rejected_idx, token = speculative_sampling(p, q, ids[0, end : end + k])\n",
     "        rejected_idx = torch.tensor(k, device=device)\n"
     "        for i in range(k):  # accept draft i iff u_i * q_i(d_i) < p_i(d_i)\n"
     "            d = ids[0, end + i]\n"
     "            if not uniforms[i] * q[i, d] < p[i, d]:\n"
     "                rejected_idx = torch.tensor(i, device=device)\n"
     "                break\n"
     "        row = ((p[rejected_idx] - q[rejected_idx]).clamp(min=0) if rejected_idx < k\n"
     "               else p[k]).double()\n"
     "        token = (row / race).argmax()  # the exponential race: a draw from row / row.sum()\n"),
]
