"""Lessons 1–2: the exact verifier laws, the correct variants, max_fn's edge cases, stubs."""
import itertools
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

from grader import exercises
from grader.oracle import stats, verifier_laws
from grader.oracle.verifier_cases import build_cases
from grader.studies import mutant_laws
from grader.studies.in_process import replayed
from grader.verdict import format_text
from solutions.residual import max_fn
from solutions.verification import speculative_sampling

VARIANTS = sorted((Path(__file__).parent / "valid_variants").glob("*.py"))
CASES = build_cases(draws=1)
SMALL = CASES[1]  # skewed, k = 3, V = 6


def brute_force_law(p: np.ndarray, q: np.ndarray) -> dict:
    """The law of the emitted tokens by enumerating every draft sequence and every
    accept/reject path with min(1, p/q): no closed form used."""
    k, vocab = q.shape
    law: Counter = Counter()
    for drafts in itertools.product(range(vocab), repeat=k):
        reach = float(np.prod([q[i, d] for i, d in enumerate(drafts)]))  # P(these drafts)
        for i, d in enumerate(drafts):
            if reach == 0:
                break
            accept = min(1.0, p[i, d] / q[i, d])
            residual = np.maximum(p[i] - q[i], 0)
            if residual.sum() > 0:
                for t in range(vocab):
                    law[drafts[:i] + (t,)] += reach * (1 - accept) * residual[t] / residual.sum()
            reach *= accept
        else:
            for t in range(vocab):
                law[drafts + (t,)] += reach * p[k, t]
    return {o: v for o, v in law.items() if v > 0}


@pytest.mark.parametrize("case", CASES[:2] + CASES[4:8], ids=lambda c: c.label)
def test_closed_form_matches_brute_force_enumeration(case):
    exact, brute = verifier_laws.emission_law(case.p, case.q), brute_force_law(case.p, case.q)
    assert set(exact) == set(brute)
    assert all(abs(exact[o] - brute[o]) < 1e-12 for o in exact)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_laws_sum_to_one_and_agree_with_the_joint_law(case):
    joint = verifier_laws.emission_law(case.p, case.q)
    assert sum(joint.values()) == pytest.approx(1, abs=1e-12)
    count_law = verifier_laws.accepted_count_law(case.p, case.q)
    assert sum(count_law.values()) == pytest.approx(1, abs=1e-12)
    marginal = Counter()
    first = Counter()
    for outcome, prob in joint.items():
        marginal[len(outcome) - 1] += prob
        first[outcome[0]] += prob
    assert all(marginal[j] == pytest.approx(count_law.get(j, 0), abs=1e-12) for j in marginal)
    assert all(first[t] == pytest.approx(case.p[0, t], abs=1e-12) for t in range(case.vocab))
    for i, law in verifier_laws.correction_laws(case.p, case.q).items():
        given = Counter()
        for outcome, prob in joint.items():
            if len(outcome) == i + 1:
                given[outcome[-1]] += prob / count_law[i]
        assert sum(law.values()) == pytest.approx(1)
        assert all(given[t] == pytest.approx(law.get(t, 0), abs=1e-9) for t in given)


def test_acceptance_rate_is_one_minus_total_variation():
    for case in CASES:
        for i, alpha in enumerate(verifier_laws.acceptance_rates(case.p, case.q)):
            assert alpha == pytest.approx(1 - verifier_laws.total_variation(case.p[i], case.q[i]))


def test_expected_tokens_per_round_matches_the_count_law():
    alpha, gamma = 0.7, 4
    p = np.tile([0.7, 0.3], (gamma + 1, 1))
    q = np.tile([1.0, 0.0], (gamma, 1))  # Σ min(p, q) = 0.7 at every position
    count_law = verifier_laws.accepted_count_law(p, q)
    tokens = sum((j + 1) * prob for j, prob in count_law.items())
    assert tokens == pytest.approx(verifier_laws.expected_tokens_per_round(alpha, gamma))
    assert verifier_laws.expected_tokens_per_round(1.0, gamma) == gamma + 1


def drawn_rounds(verify, case, rounds: int = 20000) -> list[tuple]:
    """The emitted tokens of ``rounds`` rounds of ``verify`` on ``case``, drafts drawn from q."""
    target, proposal = torch.from_numpy(case.p), torch.from_numpy(case.q)
    generator = torch.Generator().manual_seed(0)
    drafts = torch.multinomial(proposal, rounds, replacement=True, generator=generator).T
    outcomes = []
    for d in drafts:
        j, t = verify(target, proposal, d, generator)
        outcomes.append(tuple(d[:j].tolist()) + (int(t),))
    return outcomes


def test_monte_carlo_of_the_reference_matches_the_closed_form():
    outcomes = drawn_rounds(speculative_sampling, SMALL)
    law = verifier_laws.emission_law(SMALL.p, SMALL.q)
    assert stats.goodness_of_fit(outcomes, law).p_value > 1e-4
    frequencies = Counter(outcomes)
    total_variation = 0.5 * sum(abs(frequencies[o] / len(outcomes) - prob) for o, prob in law.items())
    assert total_variation < 0.05


@pytest.mark.parametrize("bug", mutant_laws.VERIFIER_BUGS)
def test_each_bugs_exact_law_is_what_its_mutant_draws(bug, tmp_path):
    """The laws behind the power statements (docs/statistics_power.md): the mutant's rounds
    follow its closed form, and the closed form is far from the exact law."""
    outcomes = drawn_rounds(mutant_function(bug, tmp_path), SMALL)
    law = mutant_laws.buggy_emission_law(SMALL.p, SMALL.q, bug)
    assert stats.goodness_of_fit(outcomes, law).p_value > 1e-4
    assert stats.goodness_of_fit(outcomes, verifier_laws.emission_law(SMALL.p, SMALL.q)).p_value < 1e-4


def mutant_function(name: str, folder: Path):
    """The verifier of the mutant ``tests/mutants/<name>.py``."""
    from grader import implementation
    from grader.studies import mutants

    path = mutants.build(mutants.load(Path(__file__).parent / "mutants" / f"{name}.py"), folder)
    return implementation.load(str(path), "verification").speculative_sampling


def test_conditional_goodness_of_fit():
    rng = np.random.default_rng(0)
    laws = {"a": {0: 0.5, 1: 0.5}, "b": {0: 0.1, 1: 0.2, 2: 0.7}}
    pairs = [("a", int(rng.choice(2))) for _ in range(2000)]
    pairs += [("b", int(rng.choice(3, p=[0.1, 0.2, 0.7]))) for _ in range(2000)]
    assert stats.conditional_goodness_of_fit(pairs, laws).p_value > 1e-3
    swapped = [("b" if c == "a" else "a", o) for c, o in pairs if o < 2]
    assert stats.conditional_goodness_of_fit(swapped, laws).p_value < 1e-4
    g_test = stats.conditional_goodness_of_fit(pairs, laws, statistic="log-likelihood", min_expected=20)
    assert g_test.p_value > 1e-3 and "G =" in stats.conditional_goodness_of_fit(
        swapped, laws, statistic="log-likelihood").message
    assert stats.conditional_goodness_of_fit([("a", 2)], laws).impossible == [("a", 2)]
    assert stats.conditional_goodness_of_fit([("c", 0)], laws).impossible == [("c", 0)]


def test_pooled_cells_reach_the_minimum_expectation():
    law = {i: p for i, p in enumerate([0.001, 0.002, 0.007, 0.09, 0.3, 0.6])}
    cells = stats.pooled_cells(law, 1000, min_expected=20)
    assert sorted(o for cell in cells for o in cell) == list(law)
    assert all(sum(law[o] for o in cell) * 1000 >= 20 for cell in cells)
    assert cells[0] == [0, 1, 2, 3]  # 1 + 2 + 7 is too small, so the 90 joins them


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.stem)
@pytest.mark.parametrize("exercise", ["speculative_decoding_verify", "speculative_sampling"])
def test_correct_variants_pass(variant, exercise):
    verdict = replayed(exercises.get(exercise), str(variant), seed=0)
    assert verdict.passed, format_text(verdict, verbose=True)



def test_max_fn_edge_cases():
    x = torch.tensor([[0.0, 0.0, 0.0], [-1.0, -2.0, -0.0], [0.2, -0.1, 0.6]], dtype=torch.float64)
    out = max_fn(x)
    assert out.dtype == torch.float64 and not out.isnan().any()
    assert torch.equal(out[:2], torch.zeros(2, 3, dtype=torch.float64))
    assert torch.allclose(out[2], torch.tensor([0.25, 0.0, 0.75], dtype=torch.float64))
    batched = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(0))
    assert max_fn(batched).dtype == torch.float32
    assert torch.allclose(max_fn(batched)[1, 2], max_fn(batched[1, 2]))
    has_positive = (batched > 0).any(-1)
    assert torch.allclose(max_fn(batched).sum(-1)[has_positive], torch.ones(int(has_positive.sum())))
