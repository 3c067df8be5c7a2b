"""mlc-ai/mlc-llm#2939 (a pull request: "[Fix][Spec] Add the draft model PopN in chain
speculative decoding"). (The issue under review named MLC #2167, "KV rollback off by one";
search found no text for it. This is the MLC KV-rollback bug whose text was found.)

What was wrong, as the pull request states it: the PopN that erases the unaccepted tokens from
the draft model's KV cache was missing when the draft is a chain (no tree draft), so the draft
model kept the rejected drafts in its context.

Replayed: the drafter reads the text with every rejected draft it forwarded still in place (a
chain forwards the round's current token and drafts 0 … k − 2; those past the first rejection
stay in its context, before the correction token), and drafts from what it reads; the verifier
is told that same law. The drafts are then worse guesses, but each is verified against the law
it was drawn from, so the output law is exact and only the acceptance drops: the audit is
expected to pass it."""
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "MLC LLM", "mlc-ai/mlc-llm#2939"
MECHANISM = "the drafter's KV cache keeps the rejected drafts (no PopN): drafts from a corrupted context"
QUICK_VERDICT = "PASS"


class DraftCacheNotPopped(ReplayLoop):
    name = "the drafter's cache keeps rejected drafts (MLC #2939)"

    def generate(self, prompt_ids, seed):
        self.stale = {}  # position in the text -> the rejected drafts the drafter's cache holds before it
        self.round = None  # (text length at the round's start, the drafts the drafter forwarded)
        return super().generate(prompt_ids, seed)

    def drafter_text(self, ids, drafts):
        if not drafts:  # a round starts: keep what the last one left in the drafter's cache
            if self.round is not None:
                start, forwarded = self.round
                accepted = len(ids) - start - 1
                if forwarded[accepted:]:
                    self.stale[start + accepted] = forwarded[accepted:]
            self.round = (len(ids), [])
        else:
            self.round = (self.round[0], list(drafts))  # the drafts forwarded so far this round
        text = ids + drafts
        for position in sorted(self.stale, reverse=True):  # from the end, so earlier positions hold
            text[position:position] = self.stale[position]
        return text


make_adapter = make_replay(DraftCacheNotPopped)
