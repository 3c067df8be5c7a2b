"""Hugging Face's heuristic: two more drafts after a round that accepts all, one fewer (at
least one) otherwise. Each round is exact whatever its size, so the output law is the target's."""
EXERCISE = "speculative_generate"  # not kv_cache: it compares cache use forward by forward
MODULE = "speculative"
PATCHES = [(
    "        drafted, accepted = drafted + k, accepted + n\n",
    "        drafted, accepted = drafted + k, accepted + n\n"
    "        gamma = gamma + 2 if n == k else max(1, gamma - 1)\n",
)]
NOT_APPLICABLE = {
    "acceptance rate": "its exact law is computed for gamma drafts in every round",
    "one target forward per round": "the reference's rounds, with which the forwards are "
                                    "compared, have gamma drafts each",
}
