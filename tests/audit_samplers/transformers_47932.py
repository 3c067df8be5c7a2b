"""huggingface/transformers#47932 (fixed by PR #47961): candidate generators return a q they
did not sample from, so assisted generation with ``do_sample=True`` is not lossless.

What was wrong, as the issue states it: ``_speculative_sampling`` treats the
``candidate_logits`` a candidate generator returns as q, the law its drafts were drawn from.
``DFlashTokenCandidateGenerator`` and ``MTPCandidateGenerator`` sample each draft from the
processor-applied logits (temperature, top-k, top-p) but return the raw logits; the
acceptance ratio p/q and the residual [p − q]+ are then computed with the raw law.

Replayed: drafts drawn from the drafter's law after the settings; the verifier is told
q = softmax(raw logits) (temperature 1, no filter). One step's output law is 0.049 from p in
total variation on average at the held-out prompts' contexts, yet every token stays inside the
nucleus and the mass moves among the likely tokens: ``--quick`` misses it (docs/audit.md)."""
import torch

from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "transformers", "huggingface/transformers#47932"
MECHANISM = "drafts sampled from the processed law, verified against softmax of the raw logits"
QUICK_VERDICT = "PASS"  # missed by --quick: its bias moves mass among the likely tokens (docs/audit.md)


class RawLogitsAsQ(ReplayLoop):
    name = "drafts from the processed law, q from the raw logits (transformers #47932)"

    def draft(self, logits):
        token, _ = super().draft(logits)
        return token, torch.softmax(logits, dim=-1)


make_adapter = make_replay(RawLogitsAsQ)
