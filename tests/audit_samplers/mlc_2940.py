"""mlc-ai/mlc-llm#2940 (a pull request: "[Fix][Spec] Fix incorrect top-p normalization in batch
verification").

What was wrong, as the pull request states it: the top-p value was not properly set for the
probabilities the main model computed in batch verification, which led to "a huge decrease of
the speculative decoding accuracy". (The issue under review named MLC #2167; search found no
text for it, so this replay takes the MLC bug whose text it found.)

Replayed: the drafts and q follow the settings; the target's law p in verification (ratio,
residual and bonus) is computed with the settings' temperature and top-k but without top-p."""
from grader.audit.adapters import Sampling
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "MLC LLM", "mlc-ai/mlc-llm#2940"
MECHANISM = "the target's law in verification without top-p (drafts with it)"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "a top-k or top-p filter is missing"  # what a line of the diagnosis says (tests/test_audit.py)


class TopPMissingOnTarget(ReplayLoop):
    name = "top-p not applied to the target's law in verification (MLC #2940)"

    def __init__(self, target, drafter, settings, new_tokens, gamma=4):
        super().__init__(target, drafter, settings, new_tokens, gamma)
        self.without_top_p = Sampling(settings.temperature, settings.top_k).processor(target.config.vocab_size)

    def target_law(self, logits):
        return self.without_top_p(logits)


make_adapter = make_replay(TopPMissingOnTarget)
