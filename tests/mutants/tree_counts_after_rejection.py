"""The walk counts a level's acceptance even after an earlier level rejected (the levels past a stop still run, from a placeholder node)."""
EXERCISE = "tree_generate"
MODULE = "trees"
PATCHES = [("        n = n + alive\n", "        n = n + (index < children)\n")]
FIRST_HINT = "must add nothing, to the count or to the output"
