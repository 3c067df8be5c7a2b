"""vllm-project/vllm-ascend#6685 (a pull request: "[Bugfix] Update target probs to target logits
in rejection sample").

What was wrong, as the pull request states it: vLLM #32852 changed ``rejection_sample`` to take
the target's logits and compute the softmax inside it (its review asked for exactly that); the
Ascend rejection sampler still handed it the target's probabilities, so "sampling with
temperature will incur accuracy problem where tokens can be accepted or rejected unreasonably".

Replayed: the verifier's target law is the softmax (after the settings' temperature) of the
target's probabilities after the settings, as if they were logits: values in [0, 1] through a
softmax give a law nearly uniform over the vocabulary. Drafts and q follow the settings."""
import torch

from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "vLLM Ascend", "vllm-project/vllm-ascend#6685"
MECHANISM = "the target's probabilities passed where its logits belong: softmax(p / T) in verification"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "drawn nearly uniformly over the vocabulary"  # what a line of the diagnosis says (tests/test_audit.py)


class ProbsAsLogits(ReplayLoop):
    name = "the target's probabilities softmaxed again as logits (vLLM Ascend #6685)"

    def target_law(self, logits):
        return torch.softmax(self.processor(logits) / self.settings.temperature, dim=-1)


make_adapter = make_replay(ProbsAsLogits)
