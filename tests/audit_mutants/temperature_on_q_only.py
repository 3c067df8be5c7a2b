"""The temperature is applied to the drafter's law q but not to the target's p in verification."""
EXERCISES = ("audit",)
MODULE = "speculative"
PATCHES = [(
    "        p = logits_processor(forward(target, ids, end + k, target_cache, rows=k + 1))  # [k+1, V]",
    "        unheated = copy.copy(logits_processor)\n"
    "        unheated.temperature = 1.0\n"
    "        p = unheated(forward(target, ids, end + k, target_cache, rows=k + 1))  # [k+1, V]",
), ("import os\n", "import copy\nimport os\n")]
