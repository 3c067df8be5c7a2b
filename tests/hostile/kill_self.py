"""Kills its own process with SIGKILL."""
import os
import signal


def autoregressive_generate(inputs, model, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
