"""No stop after a rejection (numpy): the loop goes on verifying drafts after the correction."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [("p=residual / residual.sum())))\n        return emitted\n",
            "p=residual / residual.sum())))\n")]
