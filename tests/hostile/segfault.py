"""Crashes the interpreter with a segmentation fault."""
import ctypes


def autoregressive_generate(inputs, model, **kwargs):
    ctypes.string_at(0)
