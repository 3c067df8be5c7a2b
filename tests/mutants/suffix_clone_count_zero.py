"""SuffixIndex's clone starts with no end positions instead of those of the state it splits."""
EXERCISE = "suffix_index"
MODULE = "suffix"
PATCHES = [(
    """dict(self.next[target]),
                                    self.count[target])""",
    """dict(self.next[target]), 0)""",
)]
