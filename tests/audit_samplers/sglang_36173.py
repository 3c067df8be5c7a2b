"""sgl-project/sglang#36173 (a pull request: "[Bugfix] Make top-k/top-p filtering consistent
across sampling paths").

What was wrong, as the pull request states it: SGLang computes the top-p cutoff from the
original probability distribution and intersects that support with top-k, but some paths,
among them the shared EAGLE-family/standalone/n-gram verifier and the target-distribution
builder of DFlash, DSpark and UNO, applied top-k, renormalised what remained, and then applied
top-p, which "applies top-p to whatever probability mass happens to remain after top-k". Its
regression tests use probabilities [0.35, 0.25, 0.20, 0.05, 0.03, ...] with top_k = 4 and
top_p = 0.82: the original nucleus keeps four tokens, top-p after the renormalised top-k three.

Replayed under those filters (``SETTINGS``: temperature 0.8, top-k 4, top-p 0.82, the cutoff on
the law before top-k): drafts and q follow the settings; the verifier's target law is top-k,
renormalised, then top-p. The output follows that stricter law: never a token outside the
settings' support, but no mass on the tokens its second cut drops. At the held-out prompts'
contexts the two laws differ at 40 % of them, by 0.047 in total variation on average (0.18 at
most), about what transformers#47932 moves: ``--quick`` misses it (docs/audit.md)."""
from grader.audit.adapters import Sampling
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "SGLang", "sgl-project/sglang#36173"
MECHANISM = "the verifier's target law: top-k, renormalise, then top-p (top-p meant on the law before top-k)"
QUICK_VERDICT = "PASS"  # its bias is below --quick's power (docs/audit.md)
SETTINGS = Sampling(0.8, 4, 0.82, top_p_first=True)  # the pull request's filters, SGLang's convention


class TopPAfterRenormalisedTopK(ReplayLoop):
    name = "the verifier's law top-k, renormalise, then top-p (SGLang #36173)"

    def __init__(self, target, drafter, settings, new_tokens, gamma=4):
        super().__init__(target, drafter, settings, new_tokens, gamma)
        self.transformers_order = Sampling(settings.temperature, settings.top_k, settings.top_p).processor(
            target.config.vocab_size)

    def target_law(self, logits):
        return self.transformers_order(logits)


make_adapter = make_replay(TopPAfterRenormalisedTopK)
