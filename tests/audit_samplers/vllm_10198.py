"""vllm-project/vllm#10198 (a pull request: "[Bugfix][SpecDecode] apply sampling parameters to
target probabilities for consistency in rejection sampling", fixing issue #9834).

What was wrong, as the pull request states it: the batch-expansion scorer computed the target
probabilities for rejection sampling with default sampling parameters (top_p = 1.0,
temperature = 1.0, repetition_penalty = 1.0), since it does not sample from them, while the
draft probabilities were computed with the request's parameters (filtered by top_p). A
reviewer's comment on the pull request confirms the target's temperature was set to 1.

Replayed: drafts and q follow the settings; the target's law in verification (ratio, residual
and bonus) is the target's softmax at temperature 1 without top-k or top-p. The output then
follows that law, not the settings': hotter, and with tokens outside the nucleus."""
from grader.audit.adapters import Sampling
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "vLLM", "vllm-project/vllm#10198, #9834"
MECHANISM = "the target's law for rejection sampling at default parameters (temperature 1, no top-p)"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "too hot"  # what a line of the diagnosis says (tests/test_audit.py)


class TargetAtDefaults(ReplayLoop):
    name = "the target's law at temperature 1, no top-p, in verification (vLLM #10198)"

    def __init__(self, target, drafter, settings, new_tokens, gamma=4):
        super().__init__(target, drafter, settings, new_tokens, gamma)
        self.defaults = Sampling(1.0).processor(target.config.vocab_size)

    def target_law(self, logits):
        return self.defaults(logits)


make_adapter = make_replay(TargetAtDefaults)
