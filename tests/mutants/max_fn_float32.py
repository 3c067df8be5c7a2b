"""max_fn computes in float32: float64 inputs come back as float32."""
EXERCISE = "max_fn"
MODULE = "residual"
PATCHES = [("positive = x.clamp(min=0)", "positive = x.float().clamp(min=0)")]
