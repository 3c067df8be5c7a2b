"""Each draft's q is the softmax of the head's logits, not logits_processor's distribution, and the draft is
drawn from it: still exact (the drafts are samples of the q verified), but under greedy decoding the drafts
are no longer the head's argmax and the acceptance rate falls."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """                q_rows.append(processor(head_logits[0, -1]))
                ids[0, end + i] = processor.sample(q_rows[-1])
""",
    """                q_rows.append(head_logits[0, -1].softmax(-1))
                ids[0, end + i] = torch.multinomial(q_rows[-1], 1)[0]
""",
)]
NAMED = "the drafts' q taken without logits_processor"
