"""Asks for far more memory than there is."""


def autoregressive_generate(inputs, model, **kwargs):
    return list(bytearray(10**16))
