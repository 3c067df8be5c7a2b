"""SuffixIndex.find keeps a match that occurs only at the text's end, where no token follows it."""
EXERCISE = "suffix_index"
MODULE = "suffix"
PATCHES = [(
    """        while state and not self.next[state]:  # only at the text's end: nothing followed it
            state = self.link[state]
            length = self.length[state]
""",
    "",
)]
NAMED = "a match that occurs only at the text's end"
