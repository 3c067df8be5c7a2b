"""Check `speculative_sampling`: the returned pair, p == q, drafts with p = 0, the
``generator`` argument, then the exact laws of its rounds over the fixed (p, q) cases
(the decider's alone: grader/judges/verifier_rounds.py)."""
import torch

from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from grader.oracle.verifier_cases import build_cases, equal_distributions, zero_target_rounds

LAW_DRAWS = 2000
CASES = build_cases(LAW_DRAWS)
FLOAT32_CASES = {CASES[-1].name}  # models often give float32 distributions
SMALL_DRAWS = 20  # rounds for each deterministic property
EQUAL_DRAWS = 250  # p == q: many rounds, so that a rule rejecting now and then shows


def run(check: CheckRun) -> None:
    verify = check.function("speculative_sampling")
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        check_equal_distributions(check, verify, device)
    check_zero_target_drafts(check, verify)
    rounds.generator_property(check, ADAPTER, verify, CASES[2])  # flat rows, k = 5: many answers
    for case in CASES:
        rounds.law_properties(check, ADAPTER, verify, case)


def arrange(draft, target, proposal):
    return target, proposal, draft


class Adapter(rounds.VerifierAdapter):
    """``speculative_sampling(p, q, drafts)`` on a case's rows (float32 for FLOAT32_CASES):
    each call's ``(rejected_idx, token)``, read as the round's emitted tokens for the laws."""

    def answers(self, check: CheckRun, verify, case, drafts, what: str, **keywords) -> list:
        dtype = self.dtype(case)
        return verified(check, verify, torch.from_numpy(case.p).to(dtype), torch.from_numpy(case.q).to(dtype),
                        drafts, what, **keywords)

    def law_what(self, case) -> str:
        return f"({case.name}, {self.dtype(case)})"

    def judged(self, case, drafts, answers: list) -> rounds.LawRounds:
        return rounds.LawRounds(case, [tuple(d[:j]) + (t,) for d, (j, t) in zip(drafts.tolist(), answers)])

    @staticmethod
    def dtype(case) -> torch.dtype:
        return torch.float32 if case.name in FLOAT32_CASES else torch.float64


ADAPTER = Adapter()


def verified(check: CheckRun, verify, target, proposal, drafts, what: str, **keywords):
    """The ``(rejected_idx, token)`` ints of one round per row of ``drafts`` ``[n, k]``."""
    results = rounds.call_rounds(check, verify, drafts, arrange, target, proposal, what=what,
                                 **keywords)
    k, vocab = drafts.shape[-1], target.shape[-1]
    return [rounds.parsed(check, result, k, vocab, target.device, what) for result in results]


def check_equal_distributions(check: CheckRun, verify, device: str) -> None:
    """p == q: every draft is accepted (min(1, p/q) = 1), and nothing is NaN."""
    target, proposal = equal_distributions()
    drafts = rounds.draw_drafts(check, proposal, EQUAL_DRAWS, "p == q").to(device)
    target, proposal = torch.from_numpy(target).to(device), torch.from_numpy(proposal).to(device)
    check.seed_everything("p == q", device)
    k = len(proposal)
    pairs = verified(check, verify, target, proposal, drafts, f"(p == q, k = {k}, on {device})")
    rejected = sorted({j for j, _ in pairs if j != k})
    check.require("p == q accepts every draft", not rejected,
                  f"rejected_idx was {rejected} in some of {EQUAL_DRAWS} rounds where "
                  f"target_dists[:k] == proposal_dists; it must be k = {k} every time",
                  rounds.equal_hint(rejected), case=device)


def check_zero_target_drafts(check: CheckRun, verify) -> None:
    """A draft the target gives probability 0 is never accepted."""
    target, proposal, drafts = zero_target_rounds(SMALL_DRAWS)
    check.seed_everything("p = 0")
    pairs = verified(check, verify, torch.from_numpy(target), torch.from_numpy(proposal),
                     torch.from_numpy(drafts), "(draft 1 has p = 0)")
    wrong = sorted({j for j, _ in pairs if j != 1})
    check.require("a draft with p = 0 is never accepted", not wrong,
                  f"rejected_idx was {wrong}; {rounds.ZERO_TARGET_MESSAGE}", rounds.ZERO_TARGET_HINT)
