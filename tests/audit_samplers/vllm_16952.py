"""vllm-project/vllm#16952 (a pull request: "[BugFix][Spec Decode] No in-place update to draft
probs").

What was wrong, as the pull request and the code before it show: the V1 EAGLE proposer's
``compute_probs_and_sample_next_token`` drew each draft with the exponential race
``probs.div_(q).argmax()``, ``q`` a tensor of Exp(1) noise. ``div_`` divides in place, and the
same ``probs`` tensor was returned as the draft probabilities for rejection sampling ("we
shouldn't do ``probs.div_(q)`` because the draft_probs will be used later"). The fix divides
out of place. The drafts themselves followed the drafter's law at the temperature (the race is
an exact sampler; that code applied the temperature alone, no top-k or top-p).

Replayed: each draft ``x = argmax(q / E)``, ``q`` the drafter's law at the settings'
temperature, and the verifier is told ``q / E`` (unnormalised, the noise of that very draw) as
the draft's law. At the drafted token ``E_x`` is small (it won the race), so the told q(x) is
inflated: drafts are accepted too rarely and the residual max(p − q/E, 0) corrects the wrong
way. Where q/E covers p on all of p's support that residual is empty; the course's ``max_fn``
gives a row of zeros and the race over it returns token 0, outside p's support, which the
support test counts (the diagnosis reads those tokens as drawn nearly uniformly)."""
import torch

from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "vLLM", "vllm-project/vllm#16952"
MECHANISM = "draft probabilities divided in place by the exponential race's noise before verification"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "drafts are accepted too rarely"  # what a line of the diagnosis says (tests/test_audit.py)


class DraftProbsDividedInPlace(ReplayLoop):
    name = "draft probs divided in place by the race's noise (vLLM #16952)"

    def draft(self, logits):
        q = torch.softmax(logits / self.settings.temperature, dim=-1)  # the temperature alone, as that code did
        noise = torch.empty_like(q).exponential_()
        q.div_(noise)  # in place: the race's scores are what the verifier is told
        return q.argmax(), q


make_adapter = make_replay(DraftProbsDividedInPlace)
