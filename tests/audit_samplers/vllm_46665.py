"""vllm-project/vllm#46665 (a pull request: "Use log1p to compute residual during rejection
sampling", Model Runner V2).

What was wrong, as the pull request states it: the log-residual for resampling a rejected
token was ``target_log_probs + log(1 − ratio)`` with ratio = q/p; when the ratio is below one
float32 ulp, ``1 − ratio`` rounds to 1 and the log to 0, so the residual there is p instead of
p − q, biased towards the target's probability; ``log1p(−ratio)`` fixes it.

Replayed: the residual computed in float32 as exp(log p + log(1 − q/p)) where q < p. The bias
is of the order of the float32 ulp (a token moves at most q(x) < 6e-8 · p(x) of mass), far below
what any audit of thousands of tokens can see: the audit is expected to pass it."""
import torch

from grader.audit.replay import ReplayLoop, make_replay
from solutions.verification import sample

ENGINE, ISSUE = "vLLM", "vllm-project/vllm#46665"
MECHANISM = "residual as exp(log p + log(1 − q/p)) in float32: 1 − ratio rounds to 1 below one ulp"
QUICK_VERDICT = "PASS"


class LogOneMinusRatio(ReplayLoop):
    name = "the residual through log(1 − q/p) in float32 (vLLM #46665)"

    def verify(self, p, q, drafts):
        n, token = super().verify(p, q, drafts)
        if int(n) < len(drafts):
            p_row, q_row = p[n].float(), q[n].float()
            ratio = torch.where(p_row > q_row, q_row / p_row, torch.ones_like(p_row))
            token = sample(torch.exp(torch.log(p_row) + torch.log(1 - ratio)).nan_to_num(0.0))
        return n, token


make_adapter = make_replay(LogOneMinusRatio)
