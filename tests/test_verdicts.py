"""How verdicts read: the finding that explains the others first, distinct rows once,
hints that follow from which properties failed together, honest counts."""
from pathlib import Path

import pytest

from grader import exercises
from grader.studies import mutants
from grader.studies.in_process import replayed
from grader.verdict import FAILED, OBSERVED, STATISTICAL, VALUE, format_text

MUTANTS = Path(__file__).parent / "mutants"


def verdict_of(mutant_name: str, tmp_path):
    mutant = mutants.load(MUTANTS / f"{mutant_name}.py")
    return replayed(exercises.get(mutant.exercise), str(mutants.build(mutant, tmp_path)), seed=0)


def test_a_check_without_statistical_tests_says_so():
    verdict = replayed(exercises.get("max_fn"), "solutions", seed=0)
    assert verdict.passed and "(no statistical tests)" in verdict.summary, verdict.summary


def test_greedy_match_tables_show_each_wrong_round_once_with_a_count(tmp_path):
    verdict = verdict_of("greedy_returns_draft", tmp_path)
    assert verdict.status == FAILED
    for finding in verdict.findings:
        header, *rows = finding.table
        assert header[-1] == "rounds"
        assert len({tuple(r[:-1]) for r in rows}) == len(rows), finding.table
        counts = [int(r[-1]) for r in rows]
        assert counts == sorted(counts, reverse=True)


def test_the_cache_feed_table_comes_before_the_outputs_it_explains(tmp_path):
    """The cache fed the whole prefix on top of what it holds: wrong greedy outputs too."""
    path = tmp_path / "refeed.py"
    source = (Path(__file__).parent.parent / "solutions" / "autoregressive.py").read_text()
    path.write_text(source.replace("        seen = cache.get_seq_length() if use_cache else 0\n",
                                   "        seen = 0\n"))
    verdict = replayed(exercises.get("autoregressive_generate"), str(path), seed=0)
    assert verdict.status == FAILED
    properties = [(f.name, f.kind) for f in verdict.findings]
    assert ("greedy output", VALUE) in properties, properties
    assert properties[0] == ("forwards with use_cache=True", OBSERVED), properties
    assert verdict.observed_failed == 1 and ("forwards with use_cache=True", "") in verdict.observed
    assert verdict.findings[0].table[0][:3] == ["forward", "tokens fed", "cached"]
    assert "forwards with use_cache=True" in format_text(verdict).splitlines()[2]


def test_q_from_another_processor_gets_the_processor_hint(tmp_path):
    """Only the T != 1 settings fail when q is softmax(logits): the hint names the cause."""
    verdict = verdict_of("spec_q_not_processed", tmp_path)  # its run in tests/test_mutants.py: -m slow
    assert verdict.status == FAILED, verdict.summary
    laws = [f for f in verdict.findings if f.kind in STATISTICAL]
    assert laws and all("MultinomialProcessor(temperature=1.0)" not in f.case for f in laws)
    assert all("same logits_processor as p" in f.hint for f in laws)


def test_a_bug_that_fails_at_t1_too_keeps_the_generic_hint(tmp_path):
    verdict = verdict_of("spec_target_rows_shifted", tmp_path)
    laws = [f for f in verdict.findings if f.kind in STATISTICAL]
    assert any("MultinomialProcessor(temperature=1.0)" in f.case for f in laws)
    assert not any("same logits_processor as p" in f.hint for f in laws)


# the hint of each natural bug's first failing property: FIRST_HINT in its file of tests/mutants/, which
# tests/test_mutants.py checks


def test_a_correct_loop_gets_no_bug_specific_hint():
    """The hints above are chosen from what the run showed, so a pass shows none and the
    detectors are quiet on the reference's own runs."""
    from grader.checks import batched_generate
    from grader.checks.loop_properties import models
    from grader.observers.trace import LoggedModel
    from solutions.batched import batched_speculative_generate

    target, _ = models()
    log = []
    batched_speculative_generate(batched_generate.PROMPTS, LoggedModel(target, "drafter", log),
                                 LoggedModel(target, "target", log), gamma=3, max_gen_len=9,
                                 eos_tokens_id=batched_generate.NO_EOS)
    assert log and not batched_generate.drafter_lags(log)
    first = [f for f in log if f.role == "target"][:1]
    assert not batched_generate.positions_shifted(first, batched_generate.PROMPTS)


def test_a_verbose_verdict_says_how_small_a_change_each_test_sees():
    verdict = replayed(exercises.get("multi_draft"), "solutions", seed=0)
    assert verdict.passed and verdict.threshold == pytest.approx(1e-3 / 30)  # Holm's first step
    assert len(verdict.detectable) == 28 and all(0 < delta < 0.5 for _, delta in verdict.detectable)
    text = format_text(verdict, verbose=True)
    assert "power: each of the 28 statistical tests detects" in text
    assert "power:" not in format_text(verdict)  # only with -v


def test_a_case_shared_by_failed_properties_is_written_once(tmp_path):
    """A correction sampled from p instead of the residual fails several laws of one case:
    the summary names that case once, and each finding after the first of a case says
    "(same case)". A hint shared by findings is written once, then pointed back to by name."""
    verdict = verdict_of("spec_correction_from_p", tmp_path)
    text = format_text(verdict)
    summary, cases = text.splitlines()[1], [f.case for f in verdict.findings]
    repeated = next(f"({c})" for c, d in zip(cases, cases[1:]) if c and c == d)
    assert summary.count(repeated) == 1 and repeated in summary, summary
    assert text.count(repeated) == 1 + summary.count(repeated) and "(same case)" in text, text
    everything = format_text(verdict, verbose=True)
    first = verdict.findings[0]
    assert any(f.hint == first.hint for f in verdict.findings[1:]), everything
    assert everything.count(first.hint) == 1, everything
    assert f"hint: as for {first.name} above" in everything, everything


def test_a_hint_tells_the_idea_first_and_the_code_on_asking(tmp_path):
    """max_fn without its clamp: the first hint says what to compute, not how; the code
    comes with --hint 2 (hint=2 in a notebook), and the first level says so."""
    path = tmp_path / "no_clamp.py"
    path.write_text((Path(__file__).parent.parent / "solutions" / "residual.py").read_text()
                    .replace("x.clamp(min=0)", "x"))
    verdict = replayed(exercises.get("max_fn"), str(path), seed=0)
    first = verdict.findings[0]
    assert verdict.status == FAILED and "clamp" not in first.hint and "clamp(min=0)" in first.more_hints[0]
    assert "--hint 2" in format_text(verdict) and "clamp(min=0)" not in format_text(verdict)
    deeper = format_text(verdict, hints=2)
    assert f"hint 2: {first.more_hints[0]}" in deeper and "--hint 3" not in deeper


@pytest.mark.parametrize("wrong, words", [("", "the temperature is left out"),
                                          (" * self.temperature", "multiplied by the temperature, not divided")])
def test_a_temperature_mistake_is_named(wrong, words, tmp_path):
    path = tmp_path / "sampling.py"
    path.write_text((Path(__file__).parent.parent / "solutions" / "sampling.py").read_text()
                    .replace(" / self.temperature", wrong))
    verdict = replayed(exercises.get("processors"), str(path), seed=0)
    named = [f for f in verdict.findings if words in f.message]
    assert verdict.status == FAILED and named, format_text(verdict, verbose=True)
    assert all("temperature=1.0" not in f.property for f in named)  # at T = 1 nothing to name


def judged(exercise: str, judge: str, *args) -> list[str]:
    """The messages of the findings ``judge`` of ``exercise``'s judge records on ``args``
    (a failure that stops the check included)."""
    from grader.checks.harness import CheckRun, Stop

    check = CheckRun(exercises.get(exercise), None, seed=0)
    try:
        check.judge(judge, *args)
    except Stop as stop:
        check.findings += stop.findings
    return [f.message for f in check.findings]


def unnamed_cases():
    """(exercise, judge, the right value's arguments, an unrelated wrong value's): the judges
    that name usual mistakes, each given its right answer and one that no mistake explains."""
    import numpy as np
    import torch

    from grader.checks import distillation_loss, expected_acceptance, on_policy_batch, processors
    from grader.checks.distillation_loss import Loss
    from grader.checks.expected_acceptance import Alphas
    from grader.checks.greedy_match import Answered
    from grader.checks.max_fn import Outputs
    from grader.checks.on_policy_batch import Batch
    from grader.checks.processors import Distributions
    from grader.checks.tree_attention import Layout
    from grader.judges.greedy_match import expected as greedy_of
    from grader.judges.max_fn import expected as max_fn_of
    from solutions import sampling
    from solutions.distill import distillation_loss as loss_of
    from solutions.trees import tree_layout

    x = torch.tensor([[0.3, -0.1, 0.05, -0.25], [0.2, 0.1, -0.2, -0.1]], dtype=torch.float64)
    p, q = expected_acceptance.hand_made_rows()
    alpha = torch.minimum(p, q).sum(-1)
    logits = processors.test_logits()
    kwargs = {"temperature": 0.5}
    probs = sampling.MultinomialProcessor(**kwargs)(logits)
    other = sampling.MultinomialProcessor(temperature=0.8)(logits)  # a temperature no mistake gives
    target, draft = distillation_loss.hand_made_logits()
    loss = float(loss_of(target, draft, "forward_kl", temperature=0.5))
    model, _ = on_policy_batch.models()
    ids = torch.tensor([[2, 3, 4, 1], [4, 0, 0, 5]])
    with torch.no_grad():
        right_logits = model(ids).logits[:, 1:-1]

    def batch(logits):  # prompts of 2 tokens, then the continuation the logits score
        return Batch(model, None, ids[:, :2], ids, logits, torch.zeros(2, dtype=torch.bool))
    parents = [-1, -1, 0, 0, 1, 1]
    mask, depths = tree_layout(parents)
    seen = mask.clone()
    seen[3, 2] = True  # a sibling seen: no usual mistake gives this
    rows = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
    drafts = np.array([[rows[0].argmax(), 0], [1, 2], [rows[0].argmax(), rows[1].argmax()]])
    answers = [greedy_of(rows, d) for d in drafts]
    return [
        ("greedy_match", "compare", (Answered("g", [(rows, drafts, answers)]),),
         (Answered("g", [(rows, drafts, [(stop, (token + 1) % 5) for stop, token in answers])]),)),
        ("max_fn", "compare", (Outputs("p", [x], [max_fn_of(x)], ""),), (Outputs("p", [x], [max_fn_of(x) * 0.9], ""),)),
        ("expected_acceptance", "compare", (Alphas("r", p, q, alpha, ""),), (Alphas("r", p, q, (q * q).sum(-1), ""),)),
        ("processors", "compare", (Distributions("T", "MultinomialProcessor", kwargs, logits, probs, ""),),
         (Distributions("T", "MultinomialProcessor", kwargs, logits, other, ""),)),
        ("processors", "unnormalised", (Distributions("T", "MultinomialProcessor", kwargs, logits, probs, ""),),
         (Distributions("T", "MultinomialProcessor", kwargs, logits, probs * 0.9, ""),)),
        ("distillation_loss", "loss_value", (Loss("forward_kl", "n", target, draft, 0.5, "", loss),),
         (Loss("forward_kl", "n", target, draft, 0.5, "", loss * 1.1),)),
        ("on_policy_batch", "target_logits", (batch(right_logits),), (batch(right_logits * 1.01),)),
        ("tree_attention", "compare", (Layout("t", parents, mask, depths),), (Layout("t", parents, seen, depths + 2),)),
    ]


def test_a_correct_or_an_unrelated_wrong_value_gets_no_name():
    """A usual mistake is named only when it explains the value: the right value, and a
    wrong one that no usual mistake gives, get none (but the wrong one still fails)."""
    for exercise, judge, right, wrong in unnamed_cases():
        found = judged(exercise, judge, *right)
        assert not any("yours equals" in m for m in found), (exercise, judge, found)
        found = judged(exercise, judge, *wrong)
        assert found and not any("yours equals" in m for m in found), (exercise, judge, found)


CODE_LEVELS = {  # mutant -> the code its first finding's hint gives at the third level alone
    "processor_no_softmax": "torch.softmax(logits / temperature, dim=-1)",
    "distill_alpha_mean_q_at_draft": "torch.minimum(p, q).sum(dim=-1)",
    "greedy_returns_draft": "target_dists.argmax(dim=-1)",
    "tree_mask_siblings_visible": "mask[i] |= mask[parents[i]]",
}


@pytest.mark.parametrize("name, code", CODE_LEVELS.items(), ids=list(CODE_LEVELS))
def test_a_hint_teaches_before_it_tells(name, code, tmp_path):
    """A first failure shows the idea; the step comes with hints=2, the line of code with
    hints=3 only."""
    verdict = verdict_of(name, tmp_path)
    assert verdict.status == FAILED and verdict.findings[0].more_hints, format_text(verdict, verbose=True)
    first, second, third = (format_text(verdict, hints=n) for n in (1, 2, 3))
    assert code not in first and "--hint 2" in first, first
    assert code not in second and "--hint 3" in second, second
    assert code in third, third


def test_every_hint_has_levels_a_verdict_can_carry():
    """Each hint a check or judge defines is a text or a tuple of non-empty texts, with no more
    levels than the decider accepts from a runner."""
    import importlib
    import pkgutil

    import grader.checks
    import grader.judges
    from grader.decider.replay import MAX_HINT_LEVELS

    hints = []
    for package in (grader.checks, grader.judges):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if name.endswith(("HINT", "RULES")):
                    hints.append((f"{info.name}.{name}", value))
                elif name.endswith("HINTS"):
                    hints += [(f"{info.name}.{name}[{key}]", hint) for key, hint in value.items()]
    assert len(hints) > 40
    for name, hint in hints:
        levels = [hint] if isinstance(hint, str) else hint
        assert isinstance(levels, tuple | list) and 1 <= len(levels) <= 1 + MAX_HINT_LEVELS, name
        assert all(isinstance(level, str) and level.strip() for level in levels), name


def test_a_verdict_goes_through_json_and_back_with_its_findings_typed():
    """``to_dict`` writes each finding's fields and its ``property`` text (what the JSON's
    readers show); ``from_dict`` takes that back to the same verdict."""
    import json

    from grader.verdict import LAW, Finding, Verdict

    findings = [Finding.hinted("law of token 1", "T=0.6, prompt [2]", LAW, "rejected", ("idea", "code"),
                               [["token", "count"], ["1", "3"]], statistic=9.5, p_value=1e-5, draws=300),
                Finding("forwards with use_cache=True", "", OBSERVED, "fed the whole prefix")]
    verdict = Verdict("kv_cache", FAILED, "2 of 5 properties failed", 0, findings, 5,
                      observed=[("forwards with use_cache=True", "")],
                      detectable=[("law of token 1 (T=0.6, prompt [2])", 0.2)])
    data = json.loads(json.dumps(verdict.to_dict()))
    assert [f["property"] for f in data["findings"]] == ["law of token 1 (T=0.6, prompt [2])",
                                                         "forwards with use_cache=True"]
    assert [(f["name"], f["case"], f["kind"]) for f in data["findings"]] == [
        ("law of token 1", "T=0.6, prompt [2]", LAW), ("forwards with use_cache=True", "", OBSERVED)]
    assert Verdict.from_dict(data) == verdict and verdict.observed_failed == 1


def test_asking_for_a_hint_level_there_is_not_says_so():
    """`--hint N` on a passed check, or past a verdict's deepest hint, says why nothing more
    shows rather than printing the same text as without it (issue 46)."""
    from grader.verdict import PASSED, Finding, Verdict

    passed = Verdict("max_fn", PASSED, "every property holds", 0)
    assert format_text(passed, hints=2).endswith("(--hint 2: the check passed, so there is nothing to hint)")
    assert "--hint" not in format_text(passed)
    failed = Verdict("max_fn", FAILED, "a law differs", 0, [Finding.hinted("law", "T=1", "law", "off", ("idea", "code"))])
    assert "--hint" not in format_text(failed, hints=2).splitlines()[-1]  # level 2 shown: nothing to add
    assert format_text(failed, hints=3).endswith("(--hint 3: no hint of this verdict goes 3 levels deep)")
