"""The baseline tests for an end token on the host after every token: a host sync per token instead of one per HOST_READ_EVERY."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "        if (end - prompt_len) % HOST_READ_EVERY == 0 and stops[0, prompt_len:end].any():  # the host's read",
    "        if stops[0, prompt_len:end].any():",
)]
