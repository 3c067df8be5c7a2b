"""Off-policy data labelled on-policy: the rows marked as the drafter's are continued by the target."""
EXERCISE = "on_policy_batch"
MODULE = "distill"
PATCHES = [
    ('sample_continuations(drafter, prompts[cut:], length, generator)',
     'sample_continuations(target, prompts[cut:], length, generator)'),
]
