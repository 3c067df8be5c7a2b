"""SuffixIndex.find shortens the match by one per suffix link followed, instead of to the state's length."""
EXERCISE = "suffix_index"
MODULE = "suffix"
PATCHES = [(
    """                state = self.link[state]
                length = self.length[state]
            if token in self.next[state]:""",
    """                state = self.link[state]
                length = max(length - 1, 0)
            if token in self.next[state]:""",
)]
