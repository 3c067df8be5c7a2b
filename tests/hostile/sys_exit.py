"""Calls sys.exit(0) instead of returning."""
import sys


def autoregressive_generate(inputs, model, **kwargs):
    sys.exit(0)
