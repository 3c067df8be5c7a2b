"""z-lab/dflash#74: ``dflash_generate``'s draft sampler ignores the temperature; the issue
says the speculative law diverges from the target's for temperature > 0.

What the issue states: the draft is sampled with ``sample(draft_logits)`` at the default
temperature 0 (greedy argmax) while the target samples ``posterior = sample(output.logits,
temperature)``, and a draft is accepted when it equals the target's sample at its position.

Replayed: greedy drafts, accepted while each equals the target's own sample from its row; the
first mismatching position emits the target's sample. Every emitted token is then a sample of
the target's law given the text before it (an accepted draft equals that sample), so the law
is exact and only the acceptance drops: the audit is expected to pass it, against the issue's
claim."""
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "z-lab/dflash", "z-lab/dflash#74"
MECHANISM = "greedy drafts accepted when equal to the target's own sample (exact-match verification)"
QUICK_VERDICT = "PASS"


class GreedyDraftsExactMatch(ReplayLoop):
    name = "greedy drafts, exact-match verification against the target's samples (dflash #74)"

    def draft(self, logits):
        q = self.processor(logits)
        return q.argmax(), q

    def verify(self, p, q, drafts):
        posterior = self.processor.sample(p)  # [k + 1]: the target's sample at every row
        for i, x in enumerate(drafts.tolist()):
            if x != int(posterior[i]):
                return i, posterior[i]
        return len(drafts), posterior[-1]


make_adapter = make_replay(GreedyDraftsExactMatch)
