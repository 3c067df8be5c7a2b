"""The verifier suite's shared properties (grader/checks/verifier_rounds.py) on the specs that
declare them, shown to fail where no mutant of an exercise fails them:

- the generator property on speculative_sampling's and multi_draft's adapters: a verifier
  that draws from the generator passed in passes it, one that draws from the global
  generator fails it;
- each spec's ``EveryCall`` properties (p == q accepts every draft, a draft with p = 0 is
  never accepted) on the four sampling verifiers: the reference passes them, a verifier
  that accepts every draft fails p = 0, one that rejects every draft fails p == q.
"""
import pytest
import torch

from grader import exercises
from grader.checks import batched_verify, multi_draft, speculative_sampling, verify_numpy
from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from solutions import batched, trees, verification


def global_draws(verifier):
    """``verifier`` with its ``generator`` replaced by a fresh one seeded from the global
    generator: its answers then follow the global random state, as a verifier's do when it
    leaves ``generator=`` out of a random call."""
    def verify(*args, generator=None):
        return verifier(*args, generator=torch.Generator().manual_seed(int(torch.randint(2**31, ()))))
    return verify


CASES = [("speculative_sampling", speculative_sampling, verification.speculative_sampling),
         ("multi_draft", multi_draft, trees.multi_draft_sampling)]


@pytest.mark.parametrize("exercise, check_module, verifier", CASES, ids=[c[0] for c in CASES])
def test_generator_property_passes_an_honoured_generator_and_fails_a_global_one(exercise, check_module,
                                                                                verifier):
    case = check_module.CASES[3]
    for verify, holds in ((verifier, True), (global_draws(verifier), False)):
        check = CheckRun(exercises.get(exercise), None, seed=0)
        rounds.Generator(case)(check, check_module.SUITE.adapter, verify)
        assert check.properties == 1
        assert [f.name for f in check.findings] == ([] if holds else ["the generator argument is honoured"])


EQUAL, ZERO = "p == q accepts every draft", "a draft with p = 0 is never accepted"


def tensors(j, t, like):
    return torch.as_tensor(j, device=like.device), torch.as_tensor(t, device=like.device)


EVERY_CALL = [  # exercise, spec, reference, a verifier accepting every draft, one rejecting every draft,
    # the properties each of those fails, and the hint of p == q's finding when rejected_idx is always 0
    ("speculative_sampling", speculative_sampling, verification.speculative_sampling,
     lambda p, q, d, generator=None: tensors(len(d), p[-1].argmax(), d),
     lambda p, q, d, generator=None: tensors(0, p[0].argmax(), d), {ZERO}, {EQUAL, ZERO}, rounds.NONE_REJECTED_HINT),
    ("speculative_decoding_verify", verify_numpy, verification.speculative_decoding_verify,
     lambda d, q, p, vocab: list(d) + [0], lambda d, q, p, vocab: [0], {ZERO}, {EQUAL, ZERO}, rounds.EQUAL_HINT),
    ("batched_verify", batched_verify, batched.batched_speculative_sampling,
     lambda p, q, d, generator=None: tensors([d.shape[1]] * len(d), [0] * len(d), d),
     lambda p, q, d, generator=None: tensors([0] * len(d), [0] * len(d), d), {ZERO}, {EQUAL, ZERO},
     rounds.NONE_REJECTED_HINT),
    ("multi_draft", multi_draft, trees.multi_draft_sampling,
     lambda p, q, d, generator=None: tensors(0, d[0], d),
     lambda p, q, d, generator=None: tensors(len(d), p.argmax(), d), {ZERO}, {"q == p accepts the first draft"},
     rounds.EQUAL_HINT),
]


@pytest.mark.parametrize("exercise, spec, reference, accept_all, reject_all, accept_fails, reject_fails, hint",
                         EVERY_CALL, ids=[c[0] for c in EVERY_CALL])
def test_every_call_properties_pass_the_reference_and_fail_a_verifier_that_accepts_or_rejects_all(
        exercise, spec, reference, accept_all, reject_all, accept_fails, reject_fails, hint):
    declared = [prop for prop in spec.SUITE.properties if isinstance(prop, rounds.EveryCall)]
    assert len(declared) == 2
    for verify, failing in ((reference, set()), (accept_all, accept_fails), (reject_all, reject_fails)):
        check = CheckRun(exercises.get(exercise), None, seed=0)
        for prop in declared:
            prop(check, spec.SUITE.adapter, verify)
        assert check.properties == 2
        assert {f.name for f in check.findings} == failing
    assert next(f.hint for f in check.findings if f.name != ZERO) == hint[0]


class Tests:
    """A recorder of the statistical properties a judge records: {name: result}."""

    def __init__(self):
        self.results = {}

    def test(self, prop, result, hint="", *, case=""):
        self.results[prop] = result


def test_the_bonus_law_is_recorded_whenever_a_case_can_accept_every_draft():
    """Whatever the draws: a run in which no round accepted all k drafts (the one-hot target's
    chance is a few in a thousand) records the bonus law as held on no draws, so the verdict
    counts every property; a case that can never accept them all (disjoint supports) has none."""
    from grader.judges.verifier_rounds import test_laws
    from grader.judged.verifiers import LawRounds

    reachable = next(c for c in verify_numpy.CASES if c.label.startswith("greedy target"))
    unreachable = next(c for c in verify_numpy.CASES if c.label.startswith("disjoint supports"))
    none_accepted = [(int(reachable.p[0].argmax()),)] * 50  # every round stops at the first draft
    recorder = Tests()
    test_laws(recorder, LawRounds(reachable, none_accepted))
    bonus = recorder.results[f"{reachable.label}: law of the bonus token"]
    assert bonus.p_value == 1.0 and bonus.draws == 0 and "no round accepted all 3 drafts" in bonus.message
    recorder = Tests()
    test_laws(recorder, LawRounds(unreachable, [(int(unreachable.p[0].argmax()),)] * 50))
    assert not any("bonus" in name for name in recorder.results)
