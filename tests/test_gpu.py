"""The solutions on a CUDA device, unchanged: greedy equality in float32, sampling in
bfloat16 and float16, tensors kept on the device, and the host syncs the CUDA runtime
itself reports. Skipped where there is no GPU."""
import warnings

import pytest
import torch

from grader.models import load_pair
from grader.models.synthetic import synthetic_pair
from solutions import sampling
from solutions.autoregressive import autoregressive_generate
from solutions.speculative import speculative_generate
from solutions.verification import speculative_sampling

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
NO_EOS = -1
PROMPT = list(range(10, 42))


@pytest.mark.parametrize("use_cache", [False, True])
def test_greedy_speculative_equals_greedy_target_on_cuda(use_cache):
    target, drafter, tokenizer = load_pair(device="cuda", dtype=torch.float32)
    prompt = tokenizer("def read_config(path):\n")["input_ids"]
    expected = autoregressive_generate(prompt, target, max_gen_len=64, use_cache=use_cache,
                                       eos_tokens_id=NO_EOS)
    ids, rate = speculative_generate(prompt, drafter, target, gamma=4, max_gen_len=64,
                                     use_cache=use_cache, eos_tokens_id=NO_EOS)
    assert ids == expected and 0 <= rate <= 1


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("processor", [sampling.GreedyProcessor(), sampling.MultinomialProcessor(1.0),
                                       sampling.TopKNucleusProcessor(0.8, top_k=50, top_p=0.9)])
def test_solutions_run_in_half_precision(dtype, processor):
    target, drafter = synthetic_pair(layers=4, hidden=256, divergence=0.02, device="cuda", dtype=dtype)
    ids, rate = speculative_generate(PROMPT, drafter, target, gamma=4, max_gen_len=48,
                                     logits_processor=processor, use_cache=True, eos_tokens_id=NO_EOS)
    assert len(ids) == 48 and all(0 <= t < target.config.vocab_size for t in ids)
    assert 0.3 < rate <= 1  # the pair agrees on most tokens at this divergence


def test_verification_stays_on_the_device():
    generator = torch.Generator(device="cuda").manual_seed(0)
    p = torch.rand(5, 100, device="cuda", generator=generator).softmax(-1)
    q = torch.rand(4, 100, device="cuda", generator=generator).softmax(-1)
    drafts = torch.randint(0, 100, (4,), device="cuda", generator=generator)
    index, token = speculative_sampling(p, q, drafts)
    assert index.device.type == token.device.type == "cuda"


class SyncsOutside:
    """Wraps a model; warnings raised inside its forwards are kept apart, so that the
    caller's record holds only the syncs of the decoding loop itself."""

    def __init__(self, model):
        self.model, self.forwards = model, 0

    def __call__(self, *args, **kwargs):
        self.forwards += 1
        with warnings.catch_warnings(record=True):
            return self.model(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.model, name)


def test_host_syncs_per_round_reported_by_cuda():
    """``torch.cuda.set_sync_debug_mode`` warns at every synchronising call; outside the
    models' own forwards the loop may sync once per round, plus four per call: the prompt
    and the end tokens copied to the device, the prefill's end-token check, the final ids.
    (Indexing with a 0-dim tensor, ``rows[rejected_idx]``, is a sync too: CUDA sees it,
    the CPU test in test_speculative.py cannot.)"""
    target, drafter = synthetic_pair(layers=4, hidden=256, divergence=0.02, device="cuda")
    target, drafter = SyncsOutside(target), SyncsOutside(drafter)
    proc = sampling.MultinomialProcessor(1.0)
    speculative_generate(PROMPT, drafter, target, gamma=4, max_gen_len=8, logits_processor=proc,
                         use_cache=True, eos_tokens_id=NO_EOS)  # warm-up
    target.forwards = 0
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            speculative_generate(PROMPT, drafter, target, gamma=4, max_gen_len=64,
                                 logits_processor=proc, use_cache=True, eos_tokens_id=NO_EOS)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    syncs = [w for w in caught if "synchroniz" in str(w.message).lower()]
    rounds = target.forwards - 1
    print(f"{len(syncs)} host syncs outside the models in {rounds} rounds")
    assert rounds >= 10
    assert len(syncs) <= rounds + 4, [str(w.message) for w in syncs[:5]]


@pytest.mark.parametrize("compile", [False, True])
def test_fast_loop_equals_greedy_target_on_cuda(compile):
    """Lesson 7 on CUDA: static caches and, compiled, CUDA graphs replayed every step."""
    from solutions.fast import fast_autoregressive_generate, fast_speculative_generate

    target, drafter, tokenizer = load_pair(device="cuda", dtype=torch.float32)
    prompt = tokenizer("def read_config(path):\n")["input_ids"]
    expected = autoregressive_generate(prompt, target, max_gen_len=64, use_cache=True, eos_tokens_id=NO_EOS)
    for _ in range(2):  # the second call replays what the first compiled
        ids, rate = fast_speculative_generate(prompt, drafter, target, gamma=4, max_gen_len=64,
                                              eos_tokens_id=NO_EOS, compile=compile)
        assert ids == expected and 0 <= rate <= 1
        assert fast_autoregressive_generate(prompt, target, max_gen_len=64, eos_tokens_id=NO_EOS,
                                            compile=compile) == expected


def test_batched_rows_equal_greedy_target_on_cuda():
    """Lesson 8 on the device: prompts of different lengths, each row as if alone."""
    from solutions.batched import batched_speculative_generate

    target, drafter, tokenizer = load_pair(device="cuda", dtype=torch.float32)
    prompts = [tokenizer(text)["input_ids"] for text in ("def read_config(path):\n", "import os\n")]
    expected = [autoregressive_generate(p, target, max_gen_len=32, use_cache=True, eos_tokens_id=NO_EOS)
                for p in prompts]
    outputs, rates = batched_speculative_generate(prompts, drafter, target, gamma=4, max_gen_len=32,
                                                  eos_tokens_id=NO_EOS)
    assert outputs == expected and all(0 <= r <= 1 for r in rates)


def cuda_syncs(run) -> int:
    """How many synchronising calls the CUDA runtime reports during ``run()``."""
    torch.cuda.set_sync_debug_mode("warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run()
    finally:
        torch.cuda.set_sync_debug_mode("default")
    return sum("synchroniz" in str(w.message).lower() for w in caught)


def test_compiled_fast_loops_sample_on_cuda_with_few_host_syncs():
    """Lesson 7 compiled (CUDA graphs) at T = 1, the draws inside the graphs: at most one
    sync per round for speculative decoding (drafter = target: every draft accepted, so
    rounds = ceil(63 / 5)), one per HOST_READ_EVERY tokens for the baseline, plus what a
    call does once: the prompt and end tokens copied over, one per eager prefill (the
    target's and the drafter's, one for the baseline: transformers' mask code reads the
    static cache's offset on the host to choose SDPA's causal path for a prompt), the
    prefill's end test and the output. Measured on an H200: 19 and 11."""
    from solutions.fast import HOST_READ_EVERY, fast_autoregressive_generate, fast_speculative_generate

    target, _ = synthetic_pair(layers=4, hidden=256, divergence=0.02, device="cuda")
    proc = sampling.MultinomialProcessor(1.0)
    outputs = []

    def speculative():
        outputs.append(fast_speculative_generate(PROMPT, target, target, gamma=4, max_gen_len=64,
                                                 logits_processor=proc, eos_tokens_id=NO_EOS))

    def autoregressive():
        outputs.append((fast_autoregressive_generate(PROMPT, target, 64, logits_processor=proc,
                                                     eos_tokens_id=NO_EOS), None))

    for _ in range(2):  # compile, then record the CUDA graphs
        speculative()
        autoregressive()
    syncs = {"speculative": cuda_syncs(speculative), "autoregressive": cuda_syncs(autoregressive)}
    print(f"CUDA syncs for 64 tokens: {syncs}")
    assert all(len(ids) == 64 and all(0 <= t < target.config.vocab_size for t in ids) for ids, _ in outputs)
    assert outputs[-2][1] == 1.0  # the target drafting for itself: every draft accepted
    assert len({tuple(ids) for ids, _ in outputs[1::2]}) > 1  # sampled afresh at every call
    assert syncs["speculative"] <= 13 + 6 and syncs["autoregressive"] <= 64 // HOST_READ_EVERY + 4, syncs
