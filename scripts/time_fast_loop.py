"""Tokens per second of lesson 7's fast loop against the eager loops, on the shipped pair.

One thread, greedy, held-out prompts, ``--new-tokens`` tokens each (no end token). Every
method runs once first: for a compiled one that run compiles, and its seconds are printed
apart. Then the methods take turns, every method on one prompt, then on the next, so that
a change in the machine's load hits all of them alike. Each first run and each repetition
prints ``os.getloadavg()`` before and after it: on a shared 2-core machine a 1-minute load
above 1 means another process was competing. Compile seconds depend on inductor's on-disk
cache: point ``TORCHINDUCTOR_CACHE_DIR`` at an empty directory to see a cold compile.

    python scripts/time_fast_loop.py                      # γ = 4, 5, 6; 10 prompts; 3 repetitions
    python scripts/time_fast_loop.py --gammas 4 --reps 5 --prompts 8
    python scripts/time_fast_loop.py --profile 5          # where a fast run's time goes
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from grader.bench.timing import load_averages  # noqa: E402
from grader.models import load_pair  # noqa: E402
from grader.models.corpus import held_out_prompts  # noqa: E402
from solutions.autoregressive import autoregressive_generate  # noqa: E402
from solutions.fast import fast_autoregressive_generate, fast_speculative_generate  # noqa: E402
from solutions.speculative import speculative_generate  # noqa: E402

NO_EOS = -1  # no token has this id: every run makes exactly --new-tokens tokens
BASELINE = "eager autoregressive"


def methods(target, drafter, gammas: list[int], new_tokens: int) -> dict:
    """name -> f(prompt) -> (ids, acceptance rate or None)."""
    table = {
        BASELINE: lambda x: (autoregressive_generate(
            x, target, new_tokens, eos_tokens_id=NO_EOS, use_cache=True), None),
        "fast autoregressive": lambda x: (fast_autoregressive_generate(
            x, target, new_tokens, eos_tokens_id=NO_EOS), None),
    }
    for gamma in gammas:
        table[f"eager speculative γ={gamma}"] = lambda x, g=gamma: speculative_generate(
            x, drafter, target, gamma=g, max_gen_len=new_tokens, eos_tokens_id=NO_EOS, use_cache=True)
        table[f"fast speculative γ={gamma}"] = lambda x, g=gamma: fast_speculative_generate(
            x, drafter, target, gamma=g, max_gen_len=new_tokens, eos_tokens_id=NO_EOS)
    return table


def timed(run, prompt) -> tuple[float, list[int], float | None]:
    """(seconds, ids, acceptance rate) of one run."""
    start = time.perf_counter()
    ids, rate = run(prompt)
    return time.perf_counter() - start, ids, rate


def profile_run(target, drafter, prompt, gamma: int, new_tokens: int) -> None:
    """torch.profiler's table for one warm fast speculative run."""
    from torch.profiler import ProfilerActivity, profile

    run = methods(target, drafter, [gamma], new_tokens)[f"fast speculative γ={gamma}"]
    run(prompt)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run(prompt)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gammas", type=int, nargs="+", default=[4, 5, 6])
    parser.add_argument("--prompts", type=int, default=10)
    parser.add_argument("--new-tokens", type=int, default=128)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--profile", type=int, metavar="GAMMA", help="profile one run at GAMMA instead")
    args = parser.parse_args()
    torch.set_num_threads(1)
    target, drafter, tokenizer = load_pair("cpu")
    prompts = held_out_prompts(tokenizer, args.prompts)
    if args.profile:
        return profile_run(target, drafter, prompts[0], args.profile, args.new_tokens)

    table = methods(target, drafter, args.gammas, args.new_tokens)
    print(f"{len(prompts)} held-out prompts × {args.new_tokens} tokens, greedy, 1 thread, "
          f"torch {torch.__version__}; load = os.getloadavg() (1, 5, 15 min) before -> after")
    reference = None
    for name, run in table.items():  # the first runs compile; greedy outputs must agree
        before = load_averages()
        seconds, ids, _ = timed(run, prompts[0])
        reference = reference or ids
        same = "same output" if ids == reference else "OUTPUT DIFFERS"
        print(f"first run {name:24s} {seconds:6.1f} s  ({same})  load {before} -> {load_averages()}")

    seconds = {name: [0.0] * args.reps for name in table}
    rates = {name: [] for name in table}
    for rep in range(args.reps):
        before = load_averages()
        for prompt in prompts:
            for name, run in table.items():
                elapsed, _, rate = timed(run, prompt)
                seconds[name][rep] += elapsed
                rates[name] += [rate] if rep == 0 else []
        speeds = ", ".join(f"{name} {len(prompts) * args.new_tokens / seconds[name][rep]:.0f}"
                           for name in table)
        print(f"rep {rep}: load {before} -> {load_averages()}; tok/s: {speeds}", flush=True)

    total = len(prompts) * args.new_tokens
    base = statistics.median(total / s for s in seconds[BASELINE])
    print(f"\n{'method':24s} {'tok/s median':>12s} {'min–max':>15s} {'× eager AR':>10s} {'α greedy':>9s}")
    for name in table:
        speeds = [total / s for s in seconds[name]]
        rate = statistics.mean(rates[name]) if rates[name][0] is not None else float("nan")
        print(f"{name:24s} {statistics.median(speeds):12.1f} {min(speeds):7.1f}–{max(speeds):<7.1f} "
              f"{statistics.median(speeds) / base:10.2f} {rate:9.3f}")


if __name__ == "__main__":
    main()
