"""deepseek-ai/DeepSpec#31 (fixed by PR #30): draft sampling uses a different distribution than
speculative rejection.

What was wrong, as the issue states it: ``sample_tokens`` drew the draft tokens through the
native-dtype (bfloat16) logits path, while the rejection and the correction used the float32
law from ``logits_to_probs``; the proposal must be drawn from the q the ratio uses, or the
output is biased. The fix casts the logits to float32 before the temperature and the softmax.

Replayed: each draft drawn from the settings' law computed in bfloat16 (logits rounded to
bfloat16, the temperature, the filters and the softmax in bfloat16); the verifier is told the
float32 law of the same logits. Measured at the held-out prompts' contexts (docs/audit.md): one
step's output law is 0.0020 from p in total variation on average, below what the audit states
it catches, and the audit passes it."""
import torch

from grader.audit.replay import ReplayLoop, make_replay
from solutions.sampling import keep_top_k, keep_top_p

ENGINE, ISSUE = "DeepSpec", "deepseek-ai/DeepSpec#31"
MECHANISM = "drafts sampled from the bfloat16 law, verified with the float32 one"
QUICK_VERDICT = "PASS"  # its bias lies below the quick audit's power (docs/audit.md)


class Bfloat16Drafts(ReplayLoop):
    name = "drafts from the bfloat16 law, q in float32 (DeepSpec #31)"

    def draft(self, logits):
        s = self.settings
        x = logits.bfloat16() / s.temperature
        x = keep_top_p(keep_top_k(x, s.top_k or x.shape[-1]), s.top_p or 1.0)
        drawn = torch.softmax(x, dim=-1).float()
        return self.processor.sample(drawn), self.processor(logits)


make_adapter = make_replay(Bfloat16Drafts)
