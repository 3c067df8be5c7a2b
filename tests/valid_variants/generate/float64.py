"""Both models' logits in float64 before any processing: probabilities, verification and
sampling all in double precision."""
EXERCISES = ("speculative_generate", "kv_cache")
MODULE = "speculative"
PATCHES = [(
    "    return out.logits[0, -rows:]\n",
    "    return out.logits[0, -rows:].double()\n",
)]
