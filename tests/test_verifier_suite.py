"""The verifier suite's shared generator property (grader/checks/verifier_rounds.py) on the
adapters of speculative_sampling and multi_draft: a verifier that draws from the generator
passed in passes it, one that draws from the global generator fails it. No mutant of these
exercises ignores the generator, so this is where the property is shown to fail."""
import pytest
import torch

from grader import exercises
from grader.checks import multi_draft, speculative_sampling
from grader.checks import verifier_rounds as rounds
from grader.checks.harness import CheckRun
from solutions import trees, verification


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
