"""sgl-project/sglang#31214 (a pull request: "[ROCm] Fix EAGLE spec-decode verify silently
sampling greedy on HIP").

What was wrong, as the pull request states it: on ROCm the EAGLE verifier took the greedy
branch (``target_predict = torch.argmax(...)``) for every request, ignoring temperature and
top-p, because the sampling verify kernels were not built there: any speculative run at
temperature > 0 decoded greedily.

Replayed: drafts sampled as usual; the verifier keeps drafts while they equal the argmax of
the target's row and emits that argmax (the correction and the bonus alike)."""
from grader.audit.replay import ReplayLoop, make_replay

ENGINE, ISSUE = "SGLang", "sgl-project/sglang#31214"
MECHANISM = "argmax verification under sampling: every committed token is the target's argmax"
QUICK_VERDICT = "FAIL"
DIAGNOSIS = "too cold"  # what a line of the diagnosis says (tests/test_audit.py)


class ArgmaxVerify(ReplayLoop):
    name = "greedy verification under sampling (SGLang #31214)"

    def verify(self, p, q, drafts):
        best = p.argmax(dim=-1)
        for i, x in enumerate(drafts.tolist()):
            if x != int(best[i]):
                return i, best[i]
        return len(drafts), best[-1]


make_adapter = make_replay(ArgmaxVerify)
