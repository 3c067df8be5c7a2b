"""The drafter sees only the last two tokens of the sequence. Its drafts are worse, so fewer
are accepted, but verification makes the output follow the target's law whatever q is."""
EXERCISE = "speculative_generate"  # not kv_cache: re-reading a window is not cache use
MODULE = "speculative"
PATCHES = [(
    "        q = processor(forward(drafter, ids, end + i, cache, rows=1))[0]\n",
    "        window = ids[:, max(0, end + i - 2) : end + i]  # the last two tokens only\n"
    "        q = processor(drafter(window).logits[0, -1:])[0]\n",
)]
# these properties assume the drafter reads the whole sequence
NOT_APPLICABLE = {
    "drafter = target accepts every draft": "with two tokens of context the target as drafter "
                                            "is another model",
    "one target forward per round": "compared with the reference's rounds, whose drafts differ",
    "acceptance rate": "its exact law is computed for a drafter that reads the whole sequence",
}
