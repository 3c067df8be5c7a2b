"""SuffixIndex counts an append only in the new last state, not along its suffix-link path."""
EXERCISE = "suffix_index"
MODULE = "suffix"
PATCHES = [(
    """        state = cur
        while state > 0:  # every suffix of the text now ends at one more position
            self.count[state] += 1
            state = self.link[state]""",
    """        self.count[cur] += 1""",
)]
FIRST_HINT = "the counts are not"
