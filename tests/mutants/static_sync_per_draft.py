"""Each draft is read on the host before it is written: a host sync per draft instead of one per round."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "        ids[:, end + i] = token  # a device-side copy, no host sync",
    "        ids[:, end + i] = token.item()",
)]
