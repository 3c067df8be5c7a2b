"""huggingface/transformers#28508 (a pull request: "Fix `_speculative_sampling`
implementation").

What was wrong, as its diff and review show: after a rejection the correction token was drawn
from ``torch.clamp(p − q, min=0).softmax(dim=-1)``, a softmax of the clipped residual, where
the paper normalises it ("the paper normalizes this vector, as opposed to a softmax"). A
softmax of values in [0, 1] is close to uniform over the whole vocabulary.

Replayed: the residual is softmax(max(p − q, 0)) instead of max(p − q, 0) / Σ."""
import torch

from grader.audit.replay import ReplayLoop, make_replay
from solutions.verification import sample

ENGINE, ISSUE = "transformers", "huggingface/transformers#28508"
MECHANISM = "the residual softmax(max(p − q, 0)) instead of max(p − q, 0) normalised"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "drawn nearly uniformly over the vocabulary"  # what a line of the diagnosis says (tests/test_audit.py)


class SoftmaxedResidual(ReplayLoop):
    name = "a softmax of the residual instead of its normalisation (transformers #28508)"

    def verify(self, p, q, drafts):
        n, token = super().verify(p, q, drafts)
        if int(n) < len(drafts):  # a rejection: the correction from the wrong residual
            token = sample(torch.softmax((p[n] - q[n]).clamp(min=0), dim=-1))
        return n, token


make_adapter = make_replay(SoftmaxedResidual)
