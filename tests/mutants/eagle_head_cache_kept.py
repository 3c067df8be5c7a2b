"""The head's cache is never rolled back: the loop counts the true pairs it fed, but the head's drafting steps, built on predicted features and rejected drafts, stay in its context."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [(
    """    end, drafted, accepted = prompt_len + 1, 0, 0
""",
    """    end, drafted, accepted = prompt_len + 1, 0, 0
    fed_true = 0
""",
), (
    """        read = head_cache.get_seq_length()  # pairs (f_t, x_{t+1}) the head holds: t < read
""",
    """        read = fed_true
""",
), (
    """        roll_back(head_cache, end - 1)  # the pairs built on predicted features go
""",
    """        fed_true = end - 1 if k > 0 else fed_true
""",
)]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
