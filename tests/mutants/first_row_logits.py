"""Each token sampled from the logits of the first position instead of the last."""
EXERCISE = "autoregressive_generate"
MODULE = "autoregressive"
PATCHES = [(
    "use_cache=use_cache).logits[0, -1]",
    "use_cache=use_cache).logits[0, 0]",
)]
