"""ohdearquant/lattice#388 (fixed by PR #974): MTP probabilistic verification ignores the
sampling temperature.

What was wrong, as the issue states it: ``rejection_sample_draft`` softmaxed the raw draft and
target logits with no temperature parameter, so the acceptance ratio min(1, p(x)/q(x)) was
computed under temperature 1 whatever the caller's temperature; the fix threads the temperature
into the p, q and full-accept bonus softmaxes.

Replayed: drafts sampled from the drafter's law after the settings; the verifier's p and q (the
ratio, the residual and the bonus) are the softmaxes of the raw logits, temperature 1 and no
filter. The output then leans to the temperature-1 law: hotter, with tokens outside the nucleus."""
import torch

from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "lattice", "ohdearquant/lattice#388"
MECHANISM = "p and q in verification (ratio, residual, bonus) softmaxes of the raw logits: no temperature"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "tokens outside the support"  # what a line of the diagnosis says (tests/test_audit.py)


class VerifierWithoutTemperature(ReplayLoop):
    name = "p and q in verification at temperature 1 (lattice #388)"

    def draft(self, logits):
        token, _ = super().draft(logits)
        return token, torch.softmax(logits, dim=-1)

    def target_law(self, logits):
        return torch.softmax(logits, dim=-1)


make_adapter = make_replay(VerifierWithoutTemperature)
