"""Correction from p (numpy): after a rejection the token is drawn from p_i, not the residual."""
EXERCISE = "speculative_decoding_verify"
MODULE = "verification"
PATCHES = [("residual = np.maximum(target_probs[i] - draft_probs[i], 0.0)",
            "residual = target_probs[i]")]
