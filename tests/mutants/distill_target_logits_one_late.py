"""on_policy_batch labels each continuation token with the target's logits one position late
(logits[:, P:], which predict the token after it)."""
EXERCISE = "on_policy_batch"
MODULE = "distill"
PATCHES = [('target_logits = target(ids).logits[:, prompt_length - 1 : -1]',
            'target_logits = target(ids).logits[:, prompt_length:]')]
NAMED = "the logits one position late"
