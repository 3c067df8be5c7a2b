"""draft_while_confident, under sampling, draws the draft first and keeps it only if its own probability clears
the threshold: a kept draft is then no sample of q, and verifying it against q is not exact (greedy is untouched)."""
EXERCISE = "adaptive_generate"
MODULE = "suffix"
PATCHES = [("""        if confidence < threshold:  # one host sync per draft: the length is decided here
            break
        ids[0, end + i] = processor.sample(q)""", """        token = processor.sample(q)
        if (confidence if processor.is_greedy else q[token]) < threshold:
            break
        ids[0, end + i] = token""")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
