"""`grader bench`'s measurement: build the pair and the prompts, run the bench, print the report.
grader/bench/command.py parses the command line into the ``BenchOptions`` this runs."""
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import torch

from grader import implementation
from grader.bench import batches, eagle_rows, speedup, suffix_rows, tree_shapes
from grader.bench.command import BenchOptions
from grader.bench.results import BenchResult, Conditions, FastResult
from grader.bench.timing import Phases, set_threads
from grader.models import (
    SHIPPED_DRAFTER,
    SHIPPED_TARGET,
    default_device,
    load_model,
    synthetic,
)
from grader.models.corpus import held_out_prompts

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


class Pair(NamedTuple):
    target: object
    drafter: object
    tokenizer_source: str
    target_name: str  # as the report prints them
    drafter_name: str | None  # None: the target drafts for itself (--target without --drafter)


def load_pair(pair: str, target: str | None, drafter: str | None, synthetic_shape: tuple[int, int, float],
              device: str, dtype: torch.dtype) -> Pair:
    """``target`` (and ``drafter``, else the target again) when named; else the ``pair``:
    "shipped", or "synthetic" of ``synthetic_shape`` = (layers, hidden, divergence)."""
    if target:
        return Pair(load_model(target, device, dtype), load_model(drafter or target, device, dtype), target,
                    target, drafter)
    if pair == "shipped":
        return Pair(load_model(SHIPPED_TARGET, device, dtype), load_model(SHIPPED_DRAFTER, device, dtype),
                    SHIPPED_TARGET, "shipped target", "shipped drafter")
    layers, hidden, divergence = synthetic_shape
    return Pair(*synthetic.synthetic_pair(layers, hidden, divergence, device=device, dtype=dtype), SHIPPED_TARGET,
                f"synthetic {layers}x{hidden} (divergence {divergence})", "its first layer")


def build_setup(pair: Pair, impl: str, prompts: int, new_tokens: int, sampling: bool, device: str,
                fast: speedup.FastLoops | None) -> speedup.Setup:
    """``impl``'s generate functions on ``pair``, over ``prompts`` held-out prompts."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(pair.tokenizer_source)
    processors = implementation.load(impl, "sampling")
    processor = processors.MultinomialProcessor(temperature=1.0) if sampling else processors.GreedyProcessor()
    return speedup.Setup(pair.target, pair.drafter, held_out_prompts(tokenizer, prompts), new_tokens, processor,
                         implementation.load(impl, "autoregressive").autoregressive_generate,
                         implementation.load(impl, "speculative").speculative_generate, device, fast)


def fast_loops(impl: str, compile: bool, gamma: int | None) -> speedup.FastLoops:
    loops = implementation.load(impl, "fast")
    return speedup.FastLoops(loops.fast_speculative_generate, loops.fast_autoregressive_generate, compile, gamma)


def run(options: BenchOptions, started: float) -> int:
    """The bench ``options`` ask for; ``started``: the ``time.monotonic()`` of the command's start,
    before its imports."""
    startup = time.monotonic() - started
    print(f"bench: start-up (Python, torch, transformers) took {startup:.1f} s", file=sys.stderr)
    threads = set_threads(options.threads)
    sizes, commit = options.sizes, course_commit()  # the code measured: taken before it runs
    torch.manual_seed(0)
    trees = batch_report = eagle = suffix = None
    with Phases("bench") as phases:
        with phases("setup"):
            device = options.device or default_device()
            pair = load_pair(options.pair, options.target, options.drafter, options.synthetic_shape, device,
                             DTYPES[options.dtype])
            fast = fast_loops(options.impl, options.compile, options.fast_gamma) if sizes.fast else None
            setup = build_setup(pair, options.impl, sizes.prompts, sizes.new_tokens, options.sampling, device, fast)
        comparison = speedup.run_bench(setup, options.gammas, sizes.repeats, sizes.sweep_repeats, options.hf, phases)
        if options.trees:
            with phases("trees"):
                trees = tree_shapes.run_trees(
                    setup, implementation.load(options.impl, "trees").tree_speculative_generate, sizes.repeats)
        if options.batch:  # at the γ the sweep found best at batch 1
            with phases("batches"):
                batch_report = batches.run_batches(
                    setup, implementation.load(options.impl, "batched").batched_speculative_generate,
                    options.batch, comparison.gamma, sizes.repeats)
        if options.eagle:  # the head's loops beside the drafter's chain at that γ
            with phases("feature head"):
                eagle = eagle_rows.run_eagle(setup, implementation.load(options.impl, "eagle"), comparison.gamma,
                                             comparison.alpha, comparison.cost_ratio_c, sizes.repeats)
        if options.suffix:  # lesson 12's loops beside the others, the drafter's at that γ
            with phases("suffix"):
                suffix = suffix_rows.run_suffix(setup, implementation.load(options.impl, "suffix"),
                                                implementation.load(options.impl, "eagle"), comparison.gamma,
                                                options.hf, sizes.repeats)
    result = BenchResult(comparison, conditions(setup, pair, threads, options.quick, startup, phases, commit),
                         trees, batch_report, eagle, suffix)
    print_report(result)
    if trees is not None:
        tree_shapes.print_trees(trees)
    if batch_report is not None:
        batches.print_batches(batch_report)
    if eagle is not None:
        eagle_rows.print_eagle(eagle, comparison.alpha, comparison.cost_ratio_c)
    if suffix is not None:
        suffix_rows.print_suffix(suffix)
    print(f"\nstart-up (Python, torch, transformers) {startup:.1f} s, then:")
    print(phases.table())
    if options.plot:
        from grader.figures import sweep

        sweep.save(comparison, result.conditions.target, options.plot)
        print(f"γ sweep plot: {options.plot}")
    if options.json:
        print(json.dumps(result.to_json()))
    return 0


def conditions(setup: speedup.Setup, pair: Pair, threads: int, quick: bool, startup: float,
               phases: Phases, commit: str | None = None) -> Conditions:
    """What ``setup`` timed on which device, the load each of ``phases`` ran under, and the
    course's ``commit`` measured."""
    cuda = torch.cuda.is_available() and str(setup.device).startswith("cuda")
    return Conditions(device=str(setup.device), processor=repr(setup.processor), target=pair.target_name,
                      drafter=pair.drafter_name, prompts=len(setup.prompts), new_tokens=setup.new_tokens,
                      torch_threads=threads, quick=quick, startup_seconds=startup, phases=phases.report(),
                      load=phases.whole.report(), warning=phases.warning(),
                      device_name=torch.cuda.get_device_name() if cuda else None, commit=commit)


def course_commit() -> str | None:
    """The git commit of the course's code measured, "+ changes" when its working tree differs
    from it; None outside a git checkout (a release)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(Path(__file__).resolve().parents[2]), *args], capture_output=True,
                              text=True, timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + (" + changes" if changed else "") if commit else None


def print_report(result: BenchResult) -> None:
    run, bench = result.conditions, result.comparison
    print(f"target: {run.target}; drafter: {run.drafter}; device {run.device} ({run.torch_threads} torch threads); "
          f"{run.processor}; {run.prompts} prompts x {run.new_tokens} new tokens")
    print(f"α (Σ min(p, q) along the text) = {bench.alpha:.3f}; cost ratio c = {bench.cost_ratio_c:.3f}; "
          f"best γ = {bench.gamma}")
    print(f"\n{'method':<28} {'tokens/s':>9} {'seconds':>8}")
    for method, seconds in bench.seconds.items():
        print(f"{method:<28} {bench.tokens_per_second[method]:>9.1f} {seconds:>8.2f}")
    print(f"\n{'γ':>2} {'speedup':>8} {'theory':>7} {'tokens/call':>12} {'theory':>7} {'cut':>6} {'along':>6} {'accept':>7}")
    for gamma, row in bench.sweep.items():
        print(f"{gamma:>2} {row.speedup_vs_autoregressive:>7.2f}x {row.theory_speedup:>6.2f}x "
              f"{row.tokens_per_target_call:>12.2f} {row.theory_tokens_per_target_call:>7.2f} "
              f"{row.length_limited_theory_tokens_per_target_call:>6.2f} "
              f"{row.predicted_tokens_per_target_call:>6.2f} {row.acceptance_rate:>7.3f}")
    print("(tokens/call theory: one α for every position, every round drafts γ; cut: one α, rounds cut "
          "short by the length limit; along: the α of each position, rounds cut)")
    breakdown = bench.time_breakdown
    print(f"\nwhere the time goes (speculative γ={bench.gamma}, all prompts, {breakdown.total:.2f} s):")
    for part, seconds in breakdown.parts().items():
        print(f"  {part:<44} {seconds:>7.2f} s {100 * seconds / breakdown.total:>5.1f}%")
    print(f"  one verification forward ({bench.gamma + 1} tokens) costs "
          f"{bench.verification_step_ratio:.2f}x a decode step ({bench.target_step_ms:.1f} ms); "
          "the theory assumes 1x")
    hf = bench.speedup_vs_hf_assisted
    print(f"\nspeculative γ={bench.gamma}: {bench.speedup_vs_autoregressive:.2f}x autoregressive"
          + (f", {hf:.2f}x HF assisted generation (its faster setting)" if hf else ""))
    if bench.fast:
        print_fast(bench.fast)
    elif run.quick:
        print("lesson 7's fast loops: not timed under --quick (compiling them from an empty cache takes "
              "about 100 s on a 2-core CPU); add --fast to time them too")


def print_fast(fast: FastResult) -> None:
    how = "compiled" if fast.compiled else "eager (--no-compile)"
    hf = fast.speedup_vs_hf_assisted
    print(f"fast speculative γ={fast.gamma} (lesson 7, static caches, {how} steps): "
          f"{fast.speedup_vs_autoregressive:.2f}x autoregressive, "
          f"{fast.speedup_vs_fast_autoregressive:.2f}x the fast baseline"
          + (f", {hf:.2f}x HF assisted generation" if hf else "")
          + f"; compiling took {fast.compile_seconds:.1f} s (not in tokens/s)"
          + (f" with a {fast.compile_cache} compile cache ({fast.graphs_from_cache} graphs from "
             f"inductor's on-disk cache, {fast.graphs_compiled} compiled)" if fast.compile_cache else ""))
    print(f"fast decode step {fast.target_step_ms:.2f} ms (sampling included) against a floor of "
          f"{fast.floor_step_ms:.2f} ms (weights and KV read once at the measured "
          f"{fast.memory_bandwidth_gb_s:.1f} GB/s): {fast.target_step_ms / fast.floor_step_ms:.1f}x")
    print(f"fast drafter step {fast.drafter_step_ms:.2f} ms, c = {fast.cost_ratio_c:.3f}: in theory "
          f"{fast.theory_speedup_vs_fast_autoregressive:.2f}x the fast baseline at γ={fast.gamma} "
          f"(measured {fast.speedup_vs_fast_autoregressive:.2f}x); the theory's best γ is "
          f"{fast.theory_best_gamma}")
