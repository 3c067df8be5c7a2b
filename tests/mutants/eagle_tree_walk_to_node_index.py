"""walk_deterministic_tree descends to the accepted child's node index i instead of its row 1 + i: it goes back up and never ends."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [(
    """        row = children[row][index]
        path.append(row)""",
    """        row = children[row][index] - 1
        path.append(row)""",
)]
NAMED = "a walk that never advances: it descends to node i instead of row 1 + i"
