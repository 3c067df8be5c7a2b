"""openvinotoolkit/openvino.genai#4190: speculative decoding (``draft_model()``) with non-greedy
sampling: a crash and silent output corruption from a rejection handled one iteration late.

What was wrong, as the issue states it: on a rejection the handler discards the correct
sample and lets the next iteration draw a token from the logit row for the position after the
rejected one, conditioned on the rejected draft token as context; that wrong-row token is what
the client receives ("the rejected word is deleted and its predicted continuation kept").

Replayed: on a rejection at draft i, the emitted token is drawn from the target's row i + 1
(the law after the rejected draft) instead of from the residual at row i."""
from grader.audit.replay import ReplayLoop, make_replay
from solutions.verification import sample

ENGINE, ISSUE = "OpenVINO GenAI", "openvinotoolkit/openvino.genai#4190"
MECHANISM = "after a rejection, the token comes from the next row (one position late)"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "drawn from another position's law"  # what a line of the diagnosis says (tests/test_audit.py)


class RowAfterTheRejection(ReplayLoop):
    name = "the correction drawn from the row after the rejected draft (OpenVINO GenAI #4190)"

    def verify(self, p, q, drafts):
        n, token = super().verify(p, q, drafts)
        if int(n) < len(drafts):
            token = sample(p[int(n) + 1])
        return n, token


make_adapter = make_replay(RowAfterTheRejection)
