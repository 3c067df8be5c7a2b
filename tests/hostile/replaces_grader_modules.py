"""Replaces the grader's statistics and verdict modules in sys.modules, then returns a wrong max_fn."""
import sys
import types

fake = types.ModuleType("grader.oracle.stats")
fake.goodness_of_fit = lambda *args, **kwargs: None
sys.modules["grader.oracle.stats"] = fake
sys.modules["grader.verdict"] = types.ModuleType("grader.verdict")


def max_fn(x):
    return x.clamp(min=0)  # not normalised
