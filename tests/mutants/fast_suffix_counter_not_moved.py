"""fast_suffix_speculative_generate never moves the static cache's counter back after a round:
the next verification is written after the whole previous tree, its padding included."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [("        keep_path(target_model.cache, end - 1, rows, width)\n", "")]
SLOW = "one of the longest loop mutants, 9-27 s at load 5"
