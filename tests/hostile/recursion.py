"""Recurses without end."""


def autoregressive_generate(inputs, model, **kwargs):
    return autoregressive_generate(inputs, model, **kwargs)
