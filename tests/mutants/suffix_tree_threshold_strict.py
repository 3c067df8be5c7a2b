"""speculation_tree drops a candidate whose score equals the threshold (> where ≥ is meant)."""
EXERCISE = "suffix_tree"
MODULE = "suffix"
PATCHES = [("            if child_score >= threshold:", "            if child_score > threshold:")]
NAMED = "a node of score exactly threshold = 0.5 dropped"
