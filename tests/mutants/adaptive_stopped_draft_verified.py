"""draft_while_confident still samples and returns the draft whose confidence fell below the threshold."""
EXERCISE = "adaptive_generate"
MODULE = "suffix"
PATCHES = [("""        if confidence < threshold:  # one host sync per draft: the length is decided here
            break
        ids[0, end + i] = processor.sample(q)
        rows.append(q)""", """        ids[0, end + i] = processor.sample(q)
        rows.append(q)
        if confidence < threshold:
            break""")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
