"""The baseline reads its end tests on the host after every token, not once per HOST_READ_EVERY tokens."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "        if (end - prompt_len) % HOST_READ_EVERY == 0 and stops[0, prompt_len:end].any():  # the host's read",
    "        if stops[0, prompt_len:end].any():",
)]
SLOW = "one of the longest loop mutants, 9-24 s in CI"
