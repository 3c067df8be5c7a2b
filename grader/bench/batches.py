"""`grader bench --batch 1,2,4,…`: lesson 8's batched speculative decoding against batched
autoregressive decoding, batch size by batch size.

At batch 1 a decode step spends its time reading every weight (or, for small models, on
fixed per-forward overhead) to score one token, so scoring γ + 1 tokens in one
verification forward costs far less than γ + 1 steps: speculation lives on that spare
capacity. A batch fills it with other rows instead, and a verification forward then
scores B·(γ+1) tokens against the B of a decode step. Once the forward's cost grows with
the tokens it scores, a round costs more than the tokens it emits save, and speculation
stops paying.
``crossover_batch`` is the smallest measured B where it is no longer faster; the ratio of
the two forwards' times explains it.

For each B, every one of the bench's prompts is decoded both ways, in batches of B (the
last batch, or a batch larger than the prompts, filled by cycling through them), so every
B decodes the same texts; interleaved timed repetitions (medians), ``new_tokens`` per row,
end tokens ignored.
The autoregressive baseline is the reference's own batching (``Lane``, ``left_padded``),
whatever implementation is under test, so only the speculative side is the learner's.
"""
import dataclasses
import functools
import statistics

import torch
from tqdm import tqdm

from grader.bench import speedup
from grader.bench.results import BatchReport, BatchRow
from solutions.batched import Lane, left_padded
from solutions.speculative import speculative_generate


@torch.inference_mode()
def batched_autoregressive_generate(prompts: list[list[int]], target, max_gen_len: int,
                                    logits_processor, pad_token_id: int = 0) -> list[list[int]]:
    """Exactly ``max_gen_len`` tokens for each of ``B`` prompts of any lengths, end tokens
    ignored (every row emits the same count, as the bench needs): one target forward per
    token for the whole batch, ``[B, 1]`` after the left-padded prefill ``[B, longest]``.

    Positions come from the attention mask (``Lane``), so each row is decoded as it would
    be alone: under greedy decoding row ``b`` equals
    ``autoregressive_generate(prompts[b], target, use_cache=True)`` with no end token.
    """
    batch, device = len(prompts), target.device
    lane = Lane(target, batch, use_cache=True)
    tokens, valid = left_padded(prompts, [True] * batch, pad_token_id, device)
    real = torch.ones((batch, 1), dtype=torch.long, device=device)  # no row ever finishes early
    out = torch.empty((batch, max_gen_len), dtype=torch.long, device=device)
    for i in range(max_gen_len):
        out[:, i] = logits_processor.sample(logits_processor(lane.feed(tokens, valid)[:, -1]))
        tokens, valid = out[:, i : i + 1], real
    return out.tolist()  # the one host sync: nothing decides on the tokens before the end


@torch.inference_mode()
def forward_ms(target, prompts: list[list[int]], widths: tuple[int, ...], device: str,
               repeats: int = 10) -> dict[int, float]:
    """{w: median ms of one target forward feeding ``[B, w]`` new tokens} after the ``B``
    prompts' left-padded prefill. The widths alternate within each repetition (the same
    load for all), and each forward's columns are cropped again, so every one sees a
    cache of the prompts alone."""
    batch = len(prompts)
    lane = Lane(target, batch, use_cache=True)
    lane.feed(*left_padded(prompts, [True] * batch, pad_token_id=0, device=device))
    none_kept = torch.zeros(batch, dtype=torch.long, device=device)
    samples = {w: [] for w in widths}
    for _ in range(repeats):
        for w in widths:
            tokens = torch.zeros((batch, w), dtype=torch.long, device=device)
            samples[w].append(speedup.timed(functools.partial(lane.feed, tokens, torch.ones_like(tokens)),
                                            device))
            lane.reject(w, none_kept, 0)  # every row keeps none of the w columns: all cropped
    return {w: 1000 * statistics.median(s) for w, s in samples.items()}


def batches_of(prompts: list[list[int]], size: int) -> list[list[list[int]]]:
    """Batches of ``size`` prompts that hold every prompt at least once, cycling through
    ``prompts`` to fill the last one."""
    count = -(-len(prompts) // size)  # ceil
    return [[prompts[i % len(prompts)] for i in range(start, start + size)]
            for start in range(0, count * size, size)]


def methods(setup: speedup.Setup, batched_generate, gamma: int, outputs: list, size: int) -> dict:
    """name -> a function of a batch of prompts that generates ``setup.new_tokens`` tokens
    per row; the speculative one appends its ``(outputs, rates)`` to ``outputs``. At
    ``size == 1`` also lesson 4's ``speculative_generate(use_cache=True)``, the loop the
    batched one must match when there is nothing to batch."""
    n, proc = setup.new_tokens, setup.processor
    runs = {
        "autoregressive": lambda prompts: batched_autoregressive_generate(prompts, setup.target, n, proc),
        "speculative": lambda prompts: outputs.append(batched_generate(
            prompts, setup.drafter, setup.target, gamma=gamma, logits_processor=proc, max_gen_len=n,
            eos_tokens_id=speedup.NO_EOS, use_cache=True)),
    }
    if size == 1:
        runs["single"] = lambda prompts: speculative_generate(
            prompts[0], setup.drafter, setup.target, gamma=gamma, logits_processor=proc,
            max_gen_len=n, eos_tokens_id=speedup.NO_EOS, use_cache=True)
    return runs


def run_batches(setup: speedup.Setup, batched_generate, sizes: list[int], gamma: int,
                repeats: int) -> BatchReport:
    """One row per batch size B: both methods' tokens/s over the batch, the speedup, the
    mean acceptance rate, and a target forward's time on ``[B, 1]`` and ``[B, γ+1]``;
    ``crossover_batch``: the smallest B whose speedup is at most 1 (None if none)."""
    rows = []
    with tqdm(total=repeats * (2 * len(sizes) + (1 in sizes)), desc="bench: batches", unit="run",
              leave=False) as progress:
        for size in sizes:
            batches, outputs = batches_of(setup.prompts, size), []
            runs = methods(setup, batched_generate, gamma, outputs, size)
            for run in runs.values():  # warm-up: each batch shape allocates afresh
                run(batches[0])
            # each batch is one "prompt" of the timed repetitions
            timings = speedup.time_methods(dataclasses.replace(setup, prompts=batches), runs,
                                           repeats, progress)
            ar, spec = timings.median("autoregressive"), timings.median("speculative")
            costs = forward_ms(setup.target, batches[0], (1, gamma + 1), setup.device)
            tokens = len(batches) * size * setup.new_tokens
            rows.append(BatchRow(
                batch_size=size, gamma=gamma, autoregressive_tokens_per_s=tokens / ar,
                speculative_tokens_per_s=tokens / spec, speedup=ar / spec,
                # over every row of every run, the warm-up's included (greedy: all alike)
                acceptance_rate=statistics.mean(r for _, rates in outputs for r in rates),
                target_step_ms=costs[1], verification_forward_ms=costs[gamma + 1],
                verification_step_ratio=costs[gamma + 1] / costs[1],
                # B = 1: the batched loop against lesson 4's loop
                single_loop_tokens_per_s=tokens / timings.median("single") if "single" in runs else None))
    return BatchReport(rows, next((row.batch_size for row in rows if row.speedup <= 1), None))


def print_batches(report: BatchReport) -> None:
    rows = report.batch
    gamma = rows[0].gamma
    print(f"\nbatches (lesson 8): B prompts decoded together, speculative γ={gamma} against "
          "batched autoregressive decoding (tokens/s over the whole batch):")
    print(f"{'B':>3} {'autoregressive':>15} {'speculative':>12} {'speedup':>8} {'accept':>7} "
          f"{'step ms':>8} {'verify/step':>12}")
    for row in rows:
        print(f"{row.batch_size:>3} {row.autoregressive_tokens_per_s:>15.1f} {row.speculative_tokens_per_s:>12.1f} "
              f"{row.speedup:>7.2f}x {row.acceptance_rate:>7.3f} {row.target_step_ms:>8.1f} "
              f"{row.verification_step_ratio:>11.2f}x")
    print(f"(verify/step: a target forward scoring B·{gamma + 1} tokens over one scoring B, "
          f"after the prompts; a round pays while its tokens per row, about 1 + accept·{gamma}, "
          f"outweigh its cost in decode steps: that ratio plus {gamma} drafter forwards)")
    single = next((row for row in rows if row.single_loop_tokens_per_s is not None), None)
    if single is not None:
        print(f"B = 1: the batched loop at {single.speculative_tokens_per_s:.1f} tokens/s, "
              f"speculative_generate(use_cache=True) at {single.single_loop_tokens_per_s:.1f} "
              f"({single.speculative_tokens_per_s / single.single_loop_tokens_per_s:.2f}x)")
    crossover = report.crossover_batch
    print(f"crossover: B = {crossover}, the smallest measured batch where speculation is no longer "
          "faster" if crossover is not None else "crossover: none, speculation is faster at every "
          "measured batch size")
