"""One uniform drawn before the loop and used for every draft (numpy): each draft's own
acceptance still has probability min(1, p/q), but the drafts are accepted together."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [
    ("    emitted = []\n    for i, token in enumerate(draft_tokens):\n",
     "    emitted = []\n    u = np.random.random()\n    for i, token in enumerate(draft_tokens):\n"),
    ("        if np.random.random() * q < p:  # u < p/q, without dividing by q",
     "        if u * q < p:"),
]
