"""fast_suffix_speculative_generate keeps an accepted path by moving the static cache's counter
back to end + n only: the path's keys and values stay in their tree slots, so after a branch
other than the first child is kept, the next rounds attend to a sibling's entries."""
EXERCISE = "fast_suffix_generate"
MODULE = "suffix"
PATCHES = [("        keep_path(target_model.cache, end - 1, rows, width)",
            "        target_model.cache.crop(-(width - 1 - n))")]
FIRST_HINT = "must sit right after the root"
