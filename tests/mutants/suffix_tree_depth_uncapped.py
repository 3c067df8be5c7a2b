"""speculation_tree pushes the children of a node at max_depth: the tree grows deeper than allowed."""
EXERCISE = "suffix_tree"
MODULE = "suffix"
PATCHES = [("""        if depth < max_depth:
            push(""", """        if True:
            push(""")]
