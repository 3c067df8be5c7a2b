"""The chain loop never rolls the head's cache back: the pairs of its drafting steps, built on
predicted features, stay, so the next round finds no pair it lacks and the head is fed none."""
EXERCISE = "eagle_generate"
MODULE = "eagle"
PATCHES = [
    ('''        roll_back(head_cache, end - 1)  # the pairs built on predicted features go
''', ''),
]
NAMED = "call 4 of the head fed it no pairs, its cache already holding 5"
