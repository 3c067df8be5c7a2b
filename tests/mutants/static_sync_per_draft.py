"""Each draft is read on the host before it is written: a host sync per draft instead of one per round."""
EXERCISE = "static_cache"
MODULE = "fast"
PATCHES = [(
    "        ids[0, end + i] = processor.sample(q)  # a device-side copy, no host sync",
    "        ids[0, end + i] = processor.sample(q).item()",
)]
