"""The storage is never updated: it drafts from the prompt only (prompt lookup). Slower, not wrong."""
EXERCISE = "ngram"
MODULE = "ngram"
PATCHES = [(
    "    ngramstorage.initialize(text)\n",
    "    ngramstorage = PromptLookup(ngramstorage)  # every update is ignored\n"
    "    ngramstorage.initialize(text)\n",
)]
