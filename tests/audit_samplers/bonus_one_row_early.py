"""Not a published bug: the bonus token (after every draft was accepted) drawn from the target's
row k − 1, one position early, instead of row k. The issue that asked for the audit's row
diagnosis (49) saw this bug diagnosed as a missing top-k/top-p filter; tests/test_audit.py holds
that the diagnosis now names the row. Audit it with
``grader audit tests/audit_samplers/bonus_one_row_early.py``."""
from grader.audit.replay import ReplayLoop, make_replay
from solutions.verification import sample

DIAGNOSIS = "drawn from the row one position early"  # what a line of the diagnosis says


class BonusOneRowEarly(ReplayLoop):
    name = "the bonus token drawn from row k − 1 (one position early)"

    def verify(self, p, q, drafts):
        n, token = super().verify(p, q, drafts)
        if int(n) == len(drafts) and len(drafts):
            token = sample(p[-2])
        return n, token


make_adapter = make_replay(BonusOneRowEarly)
