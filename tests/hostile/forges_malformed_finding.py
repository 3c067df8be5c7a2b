"""Makes the runner send a Stop whose finding has a string for its statistic, a p-value of 7
and a ragged table: what crashed the writing of Gradescope's results before findings were checked."""
import grader.checks.harness as harness
from grader.verdict import FAILED, VALUE, Finding


def forged_call(self, fn, *args, what="", **kwargs):
    raise harness.Stop(FAILED, "1 of 1 properties failed.", findings=[Finding(
        "norm(max(0, x))", "", VALUE, "forged", statistic="a string", p_value=7, table=[["a", "b"], ["c"]])])


harness.CheckRun.call = forged_call


def max_fn(x):
    return x
