"""Lesson 5: the n-gram storage, the drafter-free loop, its trace, the check's scenarios
(do they test what they claim?), the correct variants, the stubs."""
import sys
from pathlib import Path

import pytest
import torch

from grader import exercises
from grader.figures import round_colours
from grader.checks import ngram as check_ngram
from grader.checks.loop_properties import NO_EOS
from grader.judges.ngram import ANSWERS, reference_storage
from grader.models import SHIPPED_TARGET, load_pair
from grader.observers import ngram_trace
from grader.oracle import tiny
from grader.studies import mutants
from grader.studies.in_process import replayed
from grader.verdict import format_text
from solutions import sampling
from solutions.autoregressive import as_list, autoregressive_generate
from solutions.ngram import NGramStorage, PromptLookup, ngram_assisted_speculative_generate
from solutions.verification import speculative_sampling

TARGET = tiny.tiny_pair(check_ngram.MODEL_SEED)[0]
VARIANTS = sorted((Path(__file__).parent / "valid_variants" / "ngram").glob("*.py"))
T1 = sampling.MultinomialProcessor(temperature=1.0)


def reference_rounds(run: check_ngram.Run, **kwargs):
    ids, rate, log = ngram_trace.traced(ngram_assisted_speculative_generate, run.prompt, reference_storage(run),
                                        TARGET, **{**run.kwargs(), **kwargs})
    found, problem = ngram_trace.rounds(log, run.prompt, ids)
    assert problem is None, problem
    return ids, rate, found


@pytest.mark.parametrize("case", check_ngram.STORAGE_CASES, ids=lambda c: c.prop)
def test_storage_cases_describe_the_reference(case):
    storage = NGramStorage(case.n, 6)
    for prompt in case.prompts:
        storage.initialize(list(prompt))
    for context, tokens in case.updates:
        storage.update(list(context), list(tokens))
    assert storage.next_token(list(case.query)) == ANSWERS[case.prop]


def test_prompt_lookup_ignores_updates():
    storage = PromptLookup(NGramStorage(3, 6))
    storage.initialize([1, 2, 3])
    for _ in range(3):
        storage.update([1, 2], [5])
    assert storage.next_token([1, 2]) == 3 and storage.next_token([4]) is None


@pytest.mark.parametrize("run", check_ngram.END_TOKEN_RUNS, ids=lambda r: r.label)
def test_end_token_scenarios_stop_inside_accepted_drafts(run):
    """The end token must be met as an accepted draft with more of its round after it."""
    free, _, found = reference_rounds(run, eos_tokens_id=NO_EOS)
    stop = min(free.index(t) for t in as_list(run.eos))
    (inside,) = [r for r in found if r.start <= len(run.prompt) + stop < r.start + len(r.tokens)]
    position = len(run.prompt) + stop - inside.start
    assert inside.kinds[position] == "accepted" and position < len(inside.tokens) - 1


def test_fixed_draft_scenarios_draft_what_they_claim():
    chained, cached, filler, no_filler = (run for _, run, _ in check_ngram.FIXED_DRAFT_RUNS)
    for run in (chained, cached):  # accepted chains of drafts, and rounds cut by an unknown context
        found = reference_rounds(run)[2]
        assert max(len(r.drafts) for r in found) >= 2 and sum(r.accepted for r in found) >= 2
        assert any(0 < len(r.drafts) < min(run.gamma, run.max_gen_len - r.start + len(run.prompt) - 1)
                   for r in found)
    found = reference_rounds(filler)[2]
    assert all(len(set(r.drafts)) <= 1 for r in found) and sum(len(r.drafts) for r in found) > 5
    found = reference_rounds(no_filler)[2]
    assert found[0].drafts == [] and sum(len(r.drafts) for r in found) > 0


@pytest.mark.parametrize("case", check_ngram.LAW_CASES, ids=lambda c: c.id)
def test_law_cases_accept_and_reject_drafts(case):
    """Verification only matters where drafts are made, and both fates occur."""
    torch.manual_seed(0)
    fates = set()
    for _ in range(60):
        _, _, found = reference_rounds(case.run, logits_processor=case.processor)
        fates |= {kind for r in found for kind in r.kinds}
    assert {"accepted", "correction"} <= fates


def test_greedy_runs_cover_the_options():
    runs = check_ngram.GREEDY_RUNS
    for option in ("first_target", "stop_if_unknown", "use_cache", "lookup"):
        assert {getattr(r, option) for r in runs} == {False, True}, option
    assert {len(r.prompt) == 1 for r in runs} == {False, True}
    assert {r.filler_top_k for r in runs} >= {0, 1, 3}
    assert any(reference_rounds(r)[1] > 0.3 for r in runs)  # n-grams that really draft


def test_point_mass_verification_is_exact_and_the_fresh_resample_is_not():
    """One draft d against p: the exact law of the emitted token, by enumerating the
    accept/reject paths of speculative_sampling with q = one_hot(d), is p; the fresh
    resample after a mismatch gives d the probability p(d)(2 − p(d))."""
    p = torch.tensor([0.1, 0.5, 0.4], dtype=torch.float64)
    d = 1
    q = torch.nn.functional.one_hot(torch.tensor(d), 3).double()
    residual = (p - q).clamp(min=0) / (p - q).clamp(min=0).sum()
    exact = p[d] * q + (1 - p[d]) * residual  # accept d with p(d), else the residual
    assert torch.allclose(exact, p)
    fresh = p[d] * q + (1 - p[d]) * p
    assert fresh[d] == pytest.approx(p[d] * (2 - p[d]))
    torch.manual_seed(0)
    firsts = []  # the first emitted token: d if accepted, else the correction
    for _ in range(4000):
        rejected_idx, token = speculative_sampling(torch.stack([p, p]), q[None], torch.tensor([d]))
        firsts.append(d if rejected_idx == 1 else int(token))
    assert (torch.bincount(torch.tensor(firsts), minlength=3) / 4000 - p).abs().max() < 0.03


def test_rate_zero_when_nothing_drafted_and_debug_prints_rounds(capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # colours as on a terminal
    ids, rate = ngram_assisted_speculative_generate([2, 3], NGramStorage(3, 6), TARGET, max_gen_len=1,
                                                    eos_tokens_id=NO_EOS)
    assert len(ids) == 1 and rate == 0.0
    ngram_assisted_speculative_generate([2, 3, 2, 3], NGramStorage(3, 6), TARGET, max_gen_len=8,
                                        eos_tokens_id=NO_EOS, logits_processor=T1, debug=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(("accepted]" in line or "[target only]" in line) and "\033[" in line
                         for line in lines)
    assert not any("[0/0" in line for line in lines)


def test_trace_to_html_marks_each_rejected_draft():
    torch.manual_seed(1)
    ids, rate, found = reference_rounds(check_ngram.Run([2, 3, 2, 3, 2], 3, 3, max_gen_len=16),
                                        logits_processor=T1)
    accepted, drafted = ngram_trace.acceptance(found)
    assert rate == accepted / drafted
    html = round_colours.to_html(found, lambda t: f"<{t[0]}>")
    assert html.count("line-through") == 1 + sum(k == "correction" for r in found for k in r.kinds)


@pytest.mark.skipif(not (Path(SHIPPED_TARGET) / "config.json").is_file(), reason="no shipped pair")
def test_greedy_equals_target_alone_on_the_shipped_target():
    target, _, tokenizer = load_pair(device="cpu")
    text = "for key in keys:\n    total += counts[key]\nfor key in keys:\n    total"
    prompt = tokenizer(text)["input_ids"]
    expected = autoregressive_generate(prompt, target, max_gen_len=32, use_cache=True)
    vocab = target.config.vocab_size
    for storage in (NGramStorage(3, vocab), PromptLookup(NGramStorage(4, vocab))):
        for use_cache in (False, True):
            ids, rate = ngram_assisted_speculative_generate(prompt, storage, target, gamma=4, max_gen_len=32,
                                                            use_cache=use_cache)
            assert ids == expected
            assert rate > 0 or isinstance(storage, PromptLookup)  # the repeats are in the output


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda p: p.stem)
def test_correct_variants_pass(variant, tmp_path):
    """Variants of the reference that stay exact: the check must pass them."""
    path = mutants.build(mutants.load(variant), tmp_path)
    verdict = replayed(exercises.get("ngram"), str(path), seed=0)
    assert verdict.passed, format_text(verdict, verbose=True)

