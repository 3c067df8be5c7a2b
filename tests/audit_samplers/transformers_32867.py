"""huggingface/transformers#32867 (fixed by PR #33534, which reverted PR #30778): speculative
sampling does not keep the main model's law when the assistant drafts greedily.

What was wrong, as the issue states it: the acceptance ratio is computed against the
assistant model's output probability, but the assistant is always used greedily (PR #30778
forced greedy drafting for more matches), which amounts to a temperature of zero, so the
probability the ratio uses is not the law the drafts came from.

Replayed: each draft is the argmax of the drafter's law; the verifier is told q = that law
after the settings (the drafter's sampled law)."""
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "transformers", "huggingface/transformers#32867"
MECHANISM = "greedy (argmax) drafts verified as if sampled from the drafter's law"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "drafts chosen greedily"  # what a line of the diagnosis says (tests/test_audit.py)


class GreedyAssistant(ReplayLoop):
    name = "argmax drafts verified against the sampled q (transformers #32867)"

    def draft(self, logits):
        q = self.processor(logits)
        return q.argmax(), q


make_adapter = make_replay(GreedyAssistant)
