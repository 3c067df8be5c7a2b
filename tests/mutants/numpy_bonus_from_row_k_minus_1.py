"""Bonus from the wrong row (numpy): when all drafts are accepted the bonus comes from p_(k−1)."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [("p=target_probs[len(draft_tokens)])", "p=target_probs[len(draft_tokens) - 1])")]
