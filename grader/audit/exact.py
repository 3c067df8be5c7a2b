"""The enumerable audit: on the course's tiny pairs (vocabulary 6), the exact law of the first
L generated tokens is computed by enumeration (grader/oracle/laws.py), so the sampler's texts
are tested against it directly, as `grader check speculative_generate` tests the course's loop:

- the joint law of the L tokens (Pearson's χ², rare outcomes pooled, support test);
- the law of each token;
- the law of each token given the tokens before it (strata added up).

The cases are the check's law cases (grader/checks/speculative_generate.py: two temperatures,
top-k, top-p, two drafters, several gammas and prompts); Holm across every test of every case.
The power statement is the course's (grader/oracle/chi2_power.py): the total variation on the joint
law's cells that each case's joint test catches with probability ≥ 0.99.
"""
from collections import defaultdict
from dataclasses import dataclass

from grader.audit import EAGLE_LOOPS, SUFFIX_LOOPS, adapters
from grader.audit.pit import ALPHA, Test
from grader.checks import eagle_generate
from grader.checks.speculative_generate import LAW_CASES, models
from grader.oracle import chi2_power, laws, stats


@dataclass
class ExactCase:
    label: str
    draws: int
    joint_dof: int | None
    detectable_tv: float | None = None


def settings_of(processor) -> adapters.Sampling:
    """The Sampling settings of one of the course's processors."""
    return adapters.Sampling(processor.temperature, getattr(processor, "top_k", None),
                             getattr(processor, "top_p", None))


def conditional_laws(law: dict, position: int) -> dict:
    """{prefix (the tokens before ``position``): law of the token at ``position`` given it}."""
    joint = defaultdict(lambda: defaultdict(float))
    for outcome, probability in law.items():
        joint[outcome[:position]][outcome[position]] += probability
    return {prefix: {t: m / sum(tokens.values()) for t, m in tokens.items()} for prefix, tokens in joint.items()}


def exact_audit(sampler: str, seed: int, impl: str, loop: str, draws: int | None = None,
                alpha: float = ALPHA) -> tuple[list[Test], list[ExactCase]]:
    """Every test of the enumerable audit of ``sampler`` (Holm's verdict set on each), and
    per case its draws and power."""
    target, drafters = models()
    head = None
    if loop in EAGLE_LOOPS:  # the eagle checks' tiny head, drafting for its own copy of the same tiny target
        target, head = eagle_generate.models()
    tests, cases = [], []
    for index, case in enumerate(LAW_CASES):
        settings = settings_of(case.processor)
        drafter = drafters[case.drafter]
        adapter = adapters.make(sampler, target, drafter, settings, case.max_gen_len, case.shape["gamma"], impl, loop, head)
        count = draws or case.draws
        samples = [tuple(adapters.checked_generate(adapter, case.prompt, seed * 1_000_003 + index * 10_007 + i,
                                                   case.max_gen_len, target.config.vocab_size))
                   for i in range(count)]
        drafted_by = ("the tiny feature head" if head is not None else "the text's suffix index"
                      if loop in SUFFIX_LOOPS else f"{case.drafter} drafter")
        label = f"{settings}, prompt {case.prompt}, gamma={case.shape['gamma']}, {drafted_by}"
        law = laws.sequence_law(target, case.prompt, case.max_gen_len, settings.processor(target.config.vocab_size),
                                [adapters.NO_EOS])
        joint = stats.goodness_of_fit(samples, law, "sequence")
        tests.append(as_test(f"joint law of {case.max_gen_len} tokens ({label})", joint))
        for position in range(case.max_gen_len):
            tokens = [s[position] for s in samples]
            tests.append(as_test(f"token {position + 1} ({label})",
                                 stats.goodness_of_fit(tokens, laws.marginal(law, position))))
            if position:
                pairs = [(s[:position], s[position]) for s in samples]
                tests.append(as_test(f"token {position + 1} given the tokens before ({label})",
                                     stats.conditional_goodness_of_fit(pairs, conditional_laws(law, position))))
        cases.append(ExactCase(label, count, joint.dof))
    for test, rejected in zip(tests, stats.holm([t.p_value for t in tests], alpha)):
        test.rejected = rejected
    for case in cases:
        if case.joint_dof:
            case.detectable_tv = chi2_power.detectable_tv(case.draws, case.joint_dof, alpha / len(tests))
    return tests, cases


def as_test(name: str, result: stats.TestResult) -> Test:
    return Test(name, result.statistic, result.p_value, result.draws)
