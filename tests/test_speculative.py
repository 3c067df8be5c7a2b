"""Lessons 3–4: the loop's reference, the exact law of its acceptance rate, its trace,
its host syncs, the stubs, and the grader's detection of the biased shortcut."""
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import torch

from grader import exercises
from grader.figures import round_colours
from grader.checks.loop_properties import NO_EOS, models
from grader.models import SHIPPED_TARGET, load_pair
from grader.observers import trace
from grader.observers.host_syncs import HostSyncCounter
from grader.oracle import acceptance, laws
from grader.studies.in_process import replayed
from grader.verdict import FAILED, format_text
from solutions import sampling
from solutions.autoregressive import autoregressive_generate
from solutions.speculative import speculative_generate

TARGET, DRAFTERS = models()
NEAR = DRAFTERS["near"]
T1 = sampling.MultinomialProcessor(temperature=1.0)


def test_skip_sample_adjustment_is_biased_and_the_grader_says_so(tmp_path):
    """The shortcut samples a rejection's token from p: the check must fail it."""
    path = tmp_path / "skip.py"
    path.write_text("from solutions.speculative import speculative_generate as reference\n\n\n"
                    "def speculative_generate(*args, **kwargs):\n"
                    "    return reference(*args, **{**kwargs, 'skip_sample_adjustment': True})\n")
    verdict = replayed(exercises.get("speculative_generate"), str(path), seed=0)
    assert verdict.status == FAILED, format_text(verdict)
    assert any(f.property.startswith("law") for f in verdict.findings)



def test_rate_law_of_one_draft_is_the_overlap():
    """gamma = 1, max_gen_len = 2, no prefill: one draft, accepted with Σ min(p, q)."""
    law = acceptance.rate_law(TARGET, NEAR, [3, 5], 1, 2, T1, first_target=False)
    x = torch.tensor([[3, 5]])
    overlap = torch.minimum(T1(TARGET(x).logits[0, -1]), T1(NEAR(x).logits[0, -1])).sum().item()
    assert law.keys() == {Fraction(0), Fraction(1)}
    assert law[Fraction(1)] == pytest.approx(overlap, abs=1e-12)


@pytest.mark.parametrize("gamma,length,first_target", [(2, 4, True), (3, 4, False)])
def test_rate_law_sums_to_one_and_drafter_equal_target_accepts_all(gamma, length, first_target):
    law = acceptance.rate_law(TARGET, NEAR, [0], gamma, length, T1, first_target)
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    same = acceptance.rate_law(TARGET, TARGET, [0], gamma, length, T1, first_target)
    assert same == pytest.approx({Fraction(1): 1.0})


@pytest.mark.parametrize("first_target, eos", [(True, [1]), (False, [])])
def test_the_output_law_of_the_loop_is_the_targets_and_each_bug_moves_it(first_target, eos):
    """The enumerated loop (grader/oracle/acceptance.py) gives exactly the target's law; the
    known bugs' rules, which the power statements use, give other laws."""
    exact = acceptance.output_law(TARGET, NEAR, [0], 2, 3, T1, first_target, eos)
    truth = laws.sequence_law(TARGET, [0], 3, T1, eos)
    assert exact.keys() == truth.keys() and all(exact[o] == pytest.approx(truth[o], abs=1e-12) for o in truth)
    bugs = [acceptance.Rule(correction_from_p=True), acceptance.Rule(accept_if_p_ge_q=True),
            acceptance.Rule(q_unprocessed=True)] + ([acceptance.Rule(first_from_drafter=True)] if first_target else [])
    for rule in bugs:
        bug = acceptance.output_law(TARGET, NEAR, [0], 2, 3, T1, first_target, eos, rule)
        assert sum(bug.values()) == pytest.approx(1.0, abs=1e-12)
        distance = 0.5 * sum(abs(bug.get(o, 0.0) - truth.get(o, 0.0)) for o in set(bug) | set(truth))
        assert distance > 1e-3 or rule.q_unprocessed, (rule, distance)  # T = 1: q processed = softmax


def test_cache_changes_no_draw():
    """With and without the cache the loop draws the same numbers in the same order, so a
    seed gives one output, and the trace sees the same rounds."""
    runs = []
    for use_cache in (False, True):
        torch.manual_seed(3)
        runs.append(trace.traced(speculative_generate, [2, 3], NEAR, TARGET, gamma=3, max_gen_len=14,
                                 logits_processor=T1, eos_tokens_id=NO_EOS, use_cache=use_cache))
    (ids, rate, log), (cached_ids, cached_rate, cached_log) = runs
    assert (ids, rate) == (cached_ids, cached_rate)
    plain, cached = trace.rounds(log, [2, 3], ids), trace.rounds(cached_log, [2, 3], ids)
    assert [(r.start, r.drafts, r.kinds) for r in plain] == [(r.start, r.drafts, r.kinds) for r in cached]
    assert sum((r.tokens for r in cached), []) == ids
    assert all(r.target_cached == r.start - 1 for r in cached[1:])  # only the last token is unseen
    accepted = sum(r.accepted for r in cached)
    drafted = sum(len(r.drafts) for r in cached)
    assert rate == accepted / drafted
    by_position = trace.acceptance_by_position(cached)
    assert by_position[0][1] == sum(1 for r in cached if r.drafts)
    html = round_colours.to_html(cached, lambda t: f"<{t[0]}>")
    assert html.count("line-through") == 1 + sum(k == "correction" for r in cached for k in r.kinds)


def test_debug_prints_each_round_in_colour(capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # as on a terminal

    class Letters:
        def decode(self, ids):
            return "".join("abcdef"[i] for i in ids)

    speculative_generate([2, 3], NEAR, TARGET, Letters(), gamma=3, max_gen_len=8,
                         eos_tokens_id=NO_EOS, debug=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("[") and ("accepted]" in line or "target only]" in line)
                         for line in lines)
    assert all("\033[" in line and set(line.split("]")[1]) & set("abcdef") for line in lines)


def test_debug_prints_a_round_without_drafts_as_the_targets_token(capsys):
    """drafter = target, gamma 3, 6 tokens: the prefill, a round of 3 drafts and a bonus,
    then one token left and no room to draft: the last round is the target's alone."""
    speculative_generate([2, 3], TARGET, TARGET, gamma=3, max_gen_len=6, eos_tokens_id=NO_EOS,
                         debug=True)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("]")[0] + "]" for line in lines] == ["[3/3 accepted]", "[target only]"]


def test_host_syncs_outside_the_models_are_one_per_round():
    """Counted on the CPU through the Python calls that read a tensor on the host (on a
    GPU each one waits for the device)."""
    with HostSyncCounter() as syncs:
        target = syncs.uncounted(TARGET)
        speculative_generate([2, 3], syncs.uncounted(NEAR), target, gamma=3, max_gen_len=20,
                             logits_processor=T1, eos_tokens_id=NO_EOS, use_cache=True)
    rounds = target.forwards - 1  # the prefill is not a round
    assert rounds >= 5
    assert syncs.count <= rounds + 2, (syncs.count, rounds)  # + the prefill, the ids


@pytest.mark.skipif(not (Path(SHIPPED_TARGET) / "config.json").is_file(), reason="no shipped pair")
def test_greedy_equals_target_alone_on_the_shipped_pair():
    target, drafter, tokenizer = load_pair(device="cpu")
    for text in ("def read_config(path):\n", "import os\n\nclass ", "    for i in range("):
        prompt = tokenizer(text)["input_ids"]
        expected = autoregressive_generate(prompt, target, max_gen_len=32, use_cache=True)
        for use_cache in (False, True):
            for gamma in (1, 4):
                ids, _ = speculative_generate(prompt, drafter, target, gamma=gamma, max_gen_len=32,
                                              use_cache=use_cache)
                assert ids == expected, (text, use_cache, gamma)


def test_debug_colours_only_where_they_render(capsys, monkeypatch):
    """ANSI colours on a terminal, plain text in a pipe or file and with NO_COLOR."""
    from solutions.speculative import show_round

    monkeypatch.delenv("NO_COLOR", raising=False)
    show_round([5, 6, 7], 1, 9)
    assert "\033" not in capsys.readouterr().out  # captured: not a terminal
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    show_round([5, 6, 7], 1, 9)
    assert "\033[32m5 " in capsys.readouterr().out
    monkeypatch.setenv("NO_COLOR", "1")
    show_round([5, 6, 7], 1, 9)
    assert "\033" not in capsys.readouterr().out
