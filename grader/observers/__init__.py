"""What a check puts around the learner's code to watch it: model wrappers that log every
forward, host-sync and torch-call counters. Their states travel from the runner to the
decider as data (``observation``)."""
