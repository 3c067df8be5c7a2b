"""ml-explore/mlx-swift-lm#459 (a pull request: "MTP speculative decoding: preserve the target
distribution when sampling", building on #415).

What the pull request states: the MTP verifier accepts a draft position only when the drafted
token equals a token sampled from the target at that position; it argues that at temperature
> 0 this does not preserve the target's law ("the tokens that survive are biased toward the
modes both models agree on") and replaces it with min(1, p/q) acceptance and the residual.

Replayed: drafts sampled from the drafter's law after the settings; at each position the
target's own sample is drawn, a draft is kept while it equals that sample, and the first
mismatch emits the target's sample (after all k, the bonus is the target's sample from row k).
Every emitted token is the target's own sample given the text before it, so the law is exact
(accepted drafts are biased, the output is not); only the acceptance rate, Σ p(x)q(x), is low.
The audit is expected to pass it, against the pull request's claim (as z-lab/dflash#74)."""
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "MLX Swift LM", "ml-explore/mlx-swift-lm#459"
MECHANISM = "sampled drafts kept while equal to the target's own samples (exact-match verification)"
QUICK_VERDICT = "PASS"


class SampledDraftsExactMatch(ReplayLoop):
    name = "sampled drafts, exact-match verification against the target's samples (mlx-swift-lm #459)"

    def verify(self, p, q, drafts):
        posterior = self.processor.sample(p)  # [k + 1]: the target's sample at every row
        for i, x in enumerate(drafts.tolist()):
            if x != int(posterior[i]):
                return i, posterior[i]
        return len(drafts), posterior[-1]


make_adapter = make_replay(SampledDraftsExactMatch)
