"""Lesson 7: the fast loop equals the reference loops (greedy: token for token, and the same
acceptance rate), compiles two graphs once and never again, falls back to eager with one
warning where compiling fails, and its stubs are stubs."""
import importlib
import warnings

import pytest
import torch

from grader.models import load_pair
from grader.models.corpus import held_out_prompts
from grader.models.synthetic import synthetic_pair
from grader.observers.host_syncs import HostSyncCounter
from solutions import fast
from solutions.autoregressive import autoregressive_generate
from solutions.fast import HOST_READ_EVERY, fast_autoregressive_generate, fast_speculative_generate
from solutions.sampling import GreedyProcessor, MultinomialProcessor
from solutions.speculative import speculative_generate
from tests.conftest import PRISTINE


@pytest.fixture(scope="module")
def pair():
    target, drafter, tokenizer = load_pair("cpu")
    return target, drafter, held_out_prompts(tokenizer, 3)


@pytest.fixture(scope="module")
def small_pair():
    """Two layers of width 64: seconds to compile, not the shipped target's minute."""
    return synthetic_pair(layers=2, hidden=64, divergence=0.3)


def reference(prompt, target, max_gen_len, eos):
    return autoregressive_generate(prompt, target, max_gen_len=max_gen_len, eos_tokens_id=eos,
                                   use_cache=True)


@pytest.mark.parametrize("which,gamma,max_gen_len", [
    (0, 4, 30), (1, 1, 12), (2, 6, 25),
    (0, 4, 7),   # 6 tokens after the prefill: the last round is cut to one draft
    (1, 5, 2),   # one round, no draft: k = 0
    (2, 3, 1),   # the prefill's token alone
])
def test_greedy_output_and_rate_equal_the_references(pair, which, gamma, max_gen_len):
    target, drafter, prompts = pair
    prompt = prompts[which]
    ids, rate = fast_speculative_generate(prompt, drafter, target, gamma=gamma,
                                          max_gen_len=max_gen_len, eos_tokens_id=-1, compile=False)
    assert ids == reference(prompt, target, max_gen_len, -1)
    _, expected_rate = speculative_generate(prompt, drafter, target, gamma=gamma,
                                            max_gen_len=max_gen_len, eos_tokens_id=-1, use_cache=True)
    assert rate == expected_rate


@pytest.mark.parametrize("stop_at", [[3], [9, 4], [0]])
def test_end_tokens_inside_a_round(pair, stop_at):
    """End tokens taken from the greedy text itself: an int, a list; the first token too."""
    target, drafter, prompts = pair
    text = reference(prompts[0], target, 30, -1)
    eos = text[stop_at[0]] if len(stop_at) == 1 else [text[i] for i in stop_at]
    expected = reference(prompts[0], target, 30, eos)
    assert len(expected) <= max(stop_at) + 1  # it stops where we said
    for gamma in (2, 5):
        ids, rate = fast_speculative_generate(prompts[0], drafter, target, gamma=gamma, max_gen_len=30,
                                              eos_tokens_id=eos, compile=False)
        _, expected_rate = speculative_generate(prompts[0], drafter, target, gamma=gamma, max_gen_len=30,
                                                eos_tokens_id=eos, use_cache=True)
        assert (ids, rate) == (expected, expected_rate)
    assert fast_autoregressive_generate(prompts[0], target, 30, eos_tokens_id=eos, compile=False) == expected


def test_fast_autoregressive_equals_autoregressive(pair):
    target, _, prompts = pair
    for prompt, length in zip(prompts, (1, 17, 40), strict=True):
        assert fast_autoregressive_generate(prompt, target, length, eos_tokens_id=-1,
                                            compile=False) == reference(prompt, target, length, -1)


def test_drafter_equal_to_target_accepts_everything(pair):
    """One model in both roles keeps two caches; every draft is accepted."""
    target, _, prompts = pair
    ids, rate = fast_speculative_generate(prompts[1], target, target, gamma=4, max_gen_len=20,
                                          eos_tokens_id=-1, compile=False)
    assert (ids, rate) == (reference(prompts[1], target, 20, -1), 1.0)


def test_rollback_is_a_counter_move(pair):
    """After a crop the next step's distributions equal a fresh forward's (float64), when
    the positions fed are the counter's."""
    target, _, prompts = pair
    model = target.to(torch.float64)
    try:
        prompt = prompts[0][:20]
        ids = fast.sequence_buffer(prompt + [5, 6, 7, 8, 9], 40, model.device)
        runner = fast.StaticModel(model, 64)
        with torch.inference_mode():
            runner.prefill(ids, 20, MultinomialProcessor(1.0), torch.tensor([-1]))
            runner.step(ids, 20, 5)
            runner.cache.crop(-3)  # keep 5, 6
            ids[0, 22:24] = torch.tensor([11, 12])
            probs, _, _ = runner.step(ids, 22, 2)
            fresh = model(ids[:, :24]).logits[0, -2:].softmax(-1)
        assert torch.allclose(probs, fresh, atol=1e-12, rtol=0)
    finally:
        target.to(torch.float32)


@pytest.mark.parametrize("processor", [GreedyProcessor(), MultinomialProcessor(1.0)], ids=repr)
def test_host_reads_one_per_round_and_one_per_n_tokens(pair, processor):
    """Outside the models' forwards the speculative loop reads the host once per round
    (plus the prefill's end test and the output), the baseline once per HOST_READ_EVERY
    tokens (plus the output): sampling and end tests stay on the device."""
    target, drafter, prompts = pair
    with HostSyncCounter() as syncs:
        counted_target, counted_drafter = syncs.uncounted(target), syncs.uncounted(drafter)
        fast_speculative_generate(prompts[0], counted_drafter, counted_target, gamma=4, max_gen_len=64,
                                  logits_processor=processor, eos_tokens_id=-1, compile=False)
        rounds, reads = counted_target.forwards - 1, syncs.count
        syncs.count = 0
        ids = fast_autoregressive_generate(prompts[0], counted_target, 64, logits_processor=processor,
                                           eos_tokens_id=-1, compile=False)
    assert rounds >= 10 and reads <= rounds + 2, (reads, rounds)
    assert len(ids) == 64 and syncs.count <= 64 // HOST_READ_EVERY + 1, syncs.count


def test_the_baseline_drops_what_it_decoded_past_an_end_token(pair):
    """An end token early in a block of HOST_READ_EVERY tokens: the text still stops right
    after it, for every place of the end token in the block."""
    target, _, prompts = pair
    text = reference(prompts[2], target, 30, -1)
    for stop_at in range(2 * HOST_READ_EVERY + 1):
        eos = text[stop_at]
        expected = reference(prompts[2], target, 30, eos)
        assert fast_autoregressive_generate(prompts[2], target, 30, eos_tokens_id=eos, compile=False) == expected


def test_compiled_loops_match_and_never_recompile(small_pair):
    """compile=True: the same tokens; another prompt length compiles nothing new."""
    target, drafter = small_pair
    prompts = [list(range(3, 3 + n)) for n in (11, 29)]
    expected = [reference(p, target, 24, -1) for p in prompts]
    eager = fast_speculative_generate(prompts[0], drafter, target, gamma=3, max_gen_len=24,
                                      eos_tokens_id=-1, compile=False)
    first = fast_speculative_generate(prompts[0], drafter, target, gamma=3, max_gen_len=24,
                                      eos_tokens_id=-1)
    assert first == eager and first[0] == expected[0]
    assert fast_autoregressive_generate(prompts[0], target, 24, eos_tokens_id=-1) == expected[0]
    compiled = dict(torch._dynamo.utils.counters["stats"])
    second = fast_speculative_generate(prompts[1], drafter, target, gamma=3, max_gen_len=20,
                                       eos_tokens_id=-1)
    assert fast_autoregressive_generate(prompts[1], target, 24, eos_tokens_id=-1) == expected[1]
    assert second[0] == expected[1][:20]
    assert dict(torch._dynamo.utils.counters["stats"]) == compiled  # no graph compiled, none captured


def test_a_platform_that_cannot_compile_runs_eagerly_with_one_warning(monkeypatch):
    def no_compiler(*args, **kwargs):
        raise RuntimeError("no C++ compiler here")

    target, drafter = synthetic_pair(layers=1, hidden=32, seed=1)  # models this process never compiled
    monkeypatch.setattr(fast, "_COMPILED", {})
    monkeypatch.setattr(torch, "compile", no_compiler)
    prompt = list(range(5, 17))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ids, _ = fast_speculative_generate(prompt, drafter, target, gamma=3, max_gen_len=15, eos_tokens_id=-1)
        again = fast_autoregressive_generate(prompt, target, 15, eos_tokens_id=-1)
    expected = ("torch.compile failed on cpu (RuntimeError: no C++ compiler here); "
                "running the steps eagerly (same results, slower)")
    assert [str(w.message) for w in caught if "torch.compile" in str(w.message)] == [expected]
    assert ids == again == reference(prompt, target, 15, -1)


class BrokenProcessor(GreedyProcessor):
    """A learner's processor with a bug that shows after the prefill: it raises inside the
    first compiled step."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def __call__(self, logits):
        self.calls += 1
        if self.calls > 1:
            raise ValueError("a bug in the processor")
        return super().__call__(logits)


def test_a_bug_inside_a_compiled_step_is_reported_as_itself(monkeypatch):
    """The step's own error comes out, not a warning that blames the compiler, and the
    steps stay compiled for the next call."""
    target, drafter = synthetic_pair(layers=1, hidden=32, seed=2)
    monkeypatch.setattr(fast, "_COMPILED", {})
    prompt = list(range(5, 17))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="a bug in the processor"):
            fast_autoregressive_generate(prompt, target, 6, logits_processor=BrokenProcessor(), eos_tokens_id=-1)
    assert not [w for w in caught if "torch.compile failed" in str(w.message)]
    assert all(step is not compiled for (_, name), compiled in fast._COMPILED.items()
               for step in [getattr(fast, name)])
    assert fast_autoregressive_generate(prompt, target, 6, eos_tokens_id=-1) == reference(prompt, target, 6, -1)


def test_stubs_raise_not_implemented(pristine_lessons):
    """The lesson as shipped (git's HEAD): every exercise function is a stub."""
    stub = importlib.import_module(f"{PRISTINE}.fast")
    ids = torch.zeros(1, 4, dtype=torch.long)
    for call in (lambda: stub.fast_speculative_generate([1, 2], None, None),
                 lambda: stub.fast_autoregressive_generate([1, 2], None),
                 lambda: stub.draft(None, ids, 1, 2),
                 lambda: stub.roll_back(None, None, ids, 1, 2, 0)):
        with pytest.raises(NotImplementedError):
            call()
