"""Imports a module that does not exist."""
import a_module_that_does_not_exist  # noqa: F401


def autoregressive_generate(inputs, model, **kwargs):
    return []
