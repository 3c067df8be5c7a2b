"""vllm-project/vllm#40149 and its companion PR #41044: model drafts verified with
``draft_probs=None``.

What the issue and the pull request state: ``GPUModelRunner._sample`` passed ``None`` as
``draft_probs`` to the ``RejectionSampler`` for model-based drafters (#40149: the draft model;
#41044: MTP, whose draft sampling helper also applied temperature, top-k and top-p only in
part), so the sampler took its no-draft-probs path. That path (described in vLLM PRs #40651
and #41258) accepts a draft x with probability p(x) (q taken as one-hot) and, on a rejection,
samples from p with x's entry removed.

Replayed: drafts sampled from the drafter at the settings' temperature without top-k or top-p;
verified as point masses. Given any draft x, the token emitted is x with probability p(x) and
otherwise drawn from p without x, renormalised: its law is p whatever x's law, so this path
is exact (it only accepts less). The audit is expected to pass it."""
import torch

from grader.audit.replay import ReplayLoop, make_replay
from solutions.verification import sample

ENGINE, ISSUE = "vLLM", "vllm-project/vllm#40149, #41044"
MECHANISM = "sampled drafts verified as point masses (draft_probs=None): accept w.p. p(x), else p without x"
QUICK_VERDICT = "PASS"


class DraftProbsNone(ReplayLoop):
    name = "drafts verified with draft_probs=None (vLLM #40149, #41044)"

    def draft(self, logits):
        q = torch.softmax(logits / self.settings.temperature, dim=-1)  # the filters applied in part: none
        return self.processor.sample(q), q

    def verify(self, p, q, drafts):
        for i, x in enumerate(drafts.tolist()):
            if torch.rand(()) >= p[i, x]:  # rejected: p without the draft, renormalised
                return i, sample(p[i].index_fill(0, torch.tensor([x]), 0.0))
        return len(drafts), sample(p[-1])


make_adapter = make_replay(DraftProbsNone)
