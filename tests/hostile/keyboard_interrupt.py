"""Raises KeyboardInterrupt, as if the learner pressed Ctrl-C."""


def autoregressive_generate(inputs, model, **kwargs):
    raise KeyboardInterrupt
