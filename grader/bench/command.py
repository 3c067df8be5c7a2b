"""The `grader bench` command: build the pair and prompts, run the bench, print, plot."""
import json
import sys
import time

import torch

from grader import implementation
from grader.bench import NEW_TOKENS, PROMPTS, QUICK_NEW_TOKENS, QUICK_PROMPTS, batches, speedup, tree_shapes
from grader.bench.timing import Phases, set_threads
from grader.models import SHIPPED_DRAFTER, SHIPPED_TARGET, default_device, load_model, synthetic
from grader.models.corpus import held_out_prompts

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def parse_gammas(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(g) for g in text.split(",")]


def build_setup(args, fast: bool):
    device = args.device or default_device()
    dtype = DTYPES[args.dtype]
    sampling = implementation.load(args.impl, "sampling")
    if args.target:
        target, drafter = load_model(args.target, device, dtype), load_model(args.drafter or args.target, device, dtype)
        tokenizer_source, names = args.target, (args.target, args.drafter)
    elif args.pair == "shipped":
        target, drafter = load_model(SHIPPED_TARGET, device, dtype), load_model(SHIPPED_DRAFTER, device, dtype)
        tokenizer_source, names = SHIPPED_TARGET, ("shipped target", "shipped drafter")
    else:
        target, drafter = synthetic.synthetic_pair(args.layers, args.hidden, args.divergence,
                                                   device=device, dtype=dtype)
        tokenizer_source = SHIPPED_TARGET
        names = (f"synthetic {args.layers}x{args.hidden} (divergence {args.divergence})",
                 "its first layer")
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_source)
    processor = (sampling.MultinomialProcessor(temperature=1.0) if args.sampling
                 else sampling.GreedyProcessor())
    setup = speedup.Setup(target, drafter, held_out_prompts(tokenizer, args.prompts), args.new_tokens,
                          processor, implementation.load(args.impl, "autoregressive").autoregressive_generate,
                          implementation.load(args.impl, "speculative").speculative_generate, device)
    if fast:
        loops = implementation.load(args.impl, "fast")
        setup.fast_generate = loops.fast_speculative_generate
        setup.fast_autoregressive_generate = loops.fast_autoregressive_generate
        setup.compile = not args.no_compile
        setup.fast_gamma = args.fast_gamma
    return setup, names


def run(args, started: float) -> int:
    """The bench; ``started``: the ``time.monotonic()`` of the command's start, before its imports."""
    startup = time.monotonic() - started
    print(f"bench: start-up (Python, torch, transformers) took {startup:.1f} s", file=sys.stderr)
    threads = set_threads(args.threads)
    if args.prompts is None:
        args.prompts = QUICK_PROMPTS if args.quick else PROMPTS
    if args.new_tokens is None:
        args.new_tokens = QUICK_NEW_TOKENS if args.quick else NEW_TOKENS
    fast = not args.quick if args.fast is None else args.fast
    torch.manual_seed(0)
    repeats, sweep_repeats = (2, 1) if args.quick else (args.repeats, 2)
    with Phases("bench") as phases:
        with phases("setup"):
            setup, (target_name, drafter_name) = build_setup(args, fast)
        result = speedup.run_bench(setup, parse_gammas(args.gammas), repeats, sweep_repeats, not args.no_hf,
                                   phases)
        if args.trees:
            with phases("trees"):
                trees = implementation.load(args.impl, "trees").tree_speculative_generate
                result["trees"] = tree_shapes.run_trees(setup, trees, repeats)
        if args.batch:  # at the γ the sweep found best at batch 1
            with phases("batches"):
                batched = implementation.load(args.impl, "batched").batched_speculative_generate
                result.update(batches.run_batches(setup, batched, args.batch, result["gamma"], repeats))
    result.update(device=str(setup.device), processor=repr(setup.processor), target=target_name,
                  drafter=drafter_name, prompts=len(setup.prompts), new_tokens=setup.new_tokens,
                  torch_threads=threads, quick=args.quick, startup_seconds=startup,
                  phases=phases.report(), load=phases.whole.report(), warning=phases.warning())
    if torch.cuda.is_available() and str(setup.device).startswith("cuda"):
        result["device_name"] = torch.cuda.get_device_name()
    print_report(result)
    if args.trees:
        tree_shapes.print_trees(result["trees"])
    if args.batch:
        batches.print_batches(result)
    print(f"\nstart-up (Python, torch, transformers) {startup:.1f} s, then:")
    print(phases.table())
    if args.plot:
        plot_sweep(result, args.plot)
        print(f"γ sweep plot: {args.plot}")
    if args.json:
        print(json.dumps(result))
    return 0


def print_report(result: dict) -> None:
    print(f"target: {result['target']}; drafter: {result['drafter']}; device {result['device']} "
          f"({result['torch_threads']} torch threads); {result['processor']}; "
          f"{result['prompts']} prompts x {result['new_tokens']} new tokens")
    print(f"α (Σ min(p, q) along the text) = {result['alpha']:.3f}; cost ratio c = "
          f"{result['cost_ratio_c']:.3f}; best γ = {result['gamma']}")
    print(f"\n{'method':<28} {'tokens/s':>9} {'seconds':>8}")
    for method, seconds in result["seconds"].items():
        print(f"{method:<28} {result['tokens_per_second'][method]:>9.1f} {seconds:>8.2f}")
    print(f"\n{'γ':>2} {'speedup':>8} {'theory':>7} {'tokens/call':>12} {'theory':>7} {'cut':>6} {'along':>6} {'accept':>7}")
    for gamma, row in result["sweep"].items():
        print(f"{gamma:>2} {row['speedup_vs_autoregressive']:>7.2f}x {row['theory_speedup']:>6.2f}x "
              f"{row['tokens_per_target_call']:>12.2f} {row['theory_tokens_per_target_call']:>7.2f} "
              f"{row['length_limited_theory_tokens_per_target_call']:>6.2f} "
              f"{row['predicted_tokens_per_target_call']:>6.2f} {row['acceptance_rate']:>7.3f}")
    print("(tokens/call theory: one α for every position, every round drafts γ; cut: one α, rounds cut "
          "short by the length limit; along: the α of each position, rounds cut)")
    parts = result["time_breakdown"]
    print(f"\nwhere the time goes (speculative γ={result['gamma']}, all prompts, {parts['total']:.2f} s):")
    for part in ("target forwards", "drafter forwards", "loop (sampling, verification, bookkeeping)"):
        print(f"  {part:<44} {parts[part]:>7.2f} s {100 * parts[part] / parts['total']:>5.1f}%")
    print(f"  one verification forward ({result['gamma'] + 1} tokens) costs "
          f"{result['verification_step_ratio']:.2f}x a decode step ({result['target_step_ms']:.1f} ms); "
          "the theory assumes 1x")
    hf = result["speedup_vs_hf_assisted"]
    print(f"\nspeculative γ={result['gamma']}: {result['speedup_vs_autoregressive']:.2f}x autoregressive"
          + (f", {hf:.2f}x HF assisted generation (its faster setting)" if hf else ""))
    if result["fast"]:
        print_fast(result["fast"])
    elif result["quick"]:
        print("lesson 7's fast loops: not timed under --quick (compiling them from an empty cache takes "
              "about 100 s on a 2-core CPU); add --fast to time them too")


def print_fast(fast: dict) -> None:
    how = "compiled" if fast["compiled"] else "eager (--no-compile)"
    hf = fast["speedup_vs_hf_assisted"]
    print(f"fast speculative γ={fast['gamma']} (lesson 7, static caches, {how} steps): "
          f"{fast['speedup_vs_autoregressive']:.2f}x autoregressive, "
          f"{fast['speedup_vs_fast_autoregressive']:.2f}x the fast baseline"
          + (f", {hf:.2f}x HF assisted generation" if hf else "")
          + f"; compiling took {fast['compile_seconds']:.1f} s (not in tokens/s)"
          + (f" with a {fast['compile_cache']} compile cache ({fast['graphs_from_cache']} graphs from "
             f"inductor's on-disk cache, {fast['graphs_compiled']} compiled)" if fast["compile_cache"] else ""))
    print(f"fast decode step {fast['target_step_ms']:.2f} ms (sampling included) against a floor of "
          f"{fast['floor_step_ms']:.2f} ms (weights and KV read once at the measured "
          f"{fast['memory_bandwidth_gb_s']:.1f} GB/s): {fast['target_step_ms'] / fast['floor_step_ms']:.1f}x")
    print(f"fast drafter step {fast['drafter_step_ms']:.2f} ms, c = {fast['cost_ratio_c']:.3f}: in theory "
          f"{fast['theory_speedup_vs_fast_autoregressive']:.2f}x the fast baseline at γ={fast['gamma']} "
          f"(measured {fast['speedup_vs_fast_autoregressive']:.2f}x); the theory's best γ is "
          f"{fast['theory_best_gamma']}")


def plot_sweep(result: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = sweep_figure(result)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def sweep_figure(result: dict):
    """Measured speedup and tokens per target call against γ, each beside its theory."""
    import matplotlib.pyplot as plt

    gammas = list(result["sweep"])
    rows = [result["sweep"][g] for g in gammas]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(gammas, [r["speedup_vs_autoregressive"] for r in rows], "o-", label="measured")
    left.plot(gammas, [r["theory_speedup"] for r in rows], "--", label="theory")
    left.set(xlabel="γ (drafts per round)", ylabel="speedup over autoregressive", title="Speedup")
    right.plot(gammas, [r["tokens_per_target_call"] for r in rows], "o-", label="measured")
    right.plot(gammas, [r["theory_tokens_per_target_call"] for r in rows], "--", label="theory")
    right.plot(gammas, [r["length_limited_theory_tokens_per_target_call"] for r in rows], ":",
               label="theory, last rounds cut by the length limit")
    right.set(xlabel="γ (drafts per round)", ylabel="tokens per target call", title="Tokens per target call")
    for ax in (left, right):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.suptitle(f"{result['target']}, α = {result['alpha']:.2f}, c = {result['cost_ratio_c']:.2f}")
    fig.tight_layout()
    return fig
