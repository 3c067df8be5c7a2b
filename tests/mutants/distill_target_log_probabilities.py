"""on_policy_batch returns the target's log-probabilities (log_softmax) where its logits are meant."""
EXERCISE = "on_policy_batch"
MODULE = "distill"
PATCHES = [('target_logits = target(ids).logits[:, prompt_length - 1 : -1]',
            'target_logits = target(ids).logits[:, prompt_length - 1 : -1].log_softmax(dim=-1)')]
NAMED = "log-probabilities (log_softmax) where logits are meant"
