"""speculation_tree scores a child by count / total alone, without its parent's score."""
EXERCISE = "suffix_tree"
MODULE = "suffix"
PATCHES = [("            child_score = score * count / total", "            child_score = count / total")]
FIRST_HINT = "a child scored above its parent"
