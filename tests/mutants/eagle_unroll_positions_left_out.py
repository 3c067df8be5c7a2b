"""The unroll's steps given no position_ids: the decoder places each step's queries after the keys its cache holds, not at root t's position t + j."""
EXERCISE = "unrolled_loss"
MODULE = "eagle"
PATCHES = [("attention_bias(allowed, features.dtype), (root + step).T)", "attention_bias(allowed, features.dtype), None)")]
NAMED = "the loss of steps whose forward is given no position_ids"
