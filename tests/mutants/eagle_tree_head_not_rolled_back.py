"""The tree loop never rolls the head's cache back: it keeps the pairs of the round's nodes,
built on predicted features, so the next round finds no pair it lacks."""
EXERCISE = "eagle_tree_generate"
MODULE = "eagle"
PATCHES = [
    ('''        roll_back(head_cache, end - 1)
        end += n + 1
    return ids[0, prompt_len:end].tolist(), accepted / rounds if rounds else 0.0''',
     '''        end += n + 1
    return ids[0, prompt_len:end].tolist(), accepted / rounds if rounds else 0.0'''),
]
NAMED = "call 4 of the head fed it no pairs, its cache already holding 7"
