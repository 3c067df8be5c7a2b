"""`grader demo [PROMPT]`: speculative decoding on the shipped pair, coloured round by round,
then its acceptance rate and its speedup over autoregressive decoding, measured on the spot."""
import argparse
import statistics
import sys
import time

from grader import implementation, meanwhile
from grader.arguments import positive_int
from grader.bench.command import add_threads_argument

LEGEND = (("accepted", "accepted draft"), ("rejected", "rejected draft"),
          ("correction", "target's correction"), ("bonus", "bonus token"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", nargs="?", default="def read_config(path):\n")
    parser.add_argument("--gamma", type=positive_int, default=4)
    parser.add_argument("--max-gen-len", type=positive_int, default=96)
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs of each method")
    parser.add_argument("--target", help="a local directory or hub id instead of the shipped target")
    parser.add_argument("--drafter", help="a local directory or hub id instead of the shipped drafter")
    parser.add_argument("--device", default=None)
    parser.add_argument("--impl", default=None, help="whose speculative_generate to run (default: "
                        "solutions; in a release without the reference, your lessons, once finished)")
    add_threads_argument(parser)


def run(args: argparse.Namespace) -> int:
    args.impl = args.impl or ("solutions" if implementation.has_reference() else implementation.DEFAULT_IMPL)
    unfinished = unfinished_loops(args.impl)
    if unfinished:
        print(f"✘ {unfinished}", file=sys.stderr)
        return 1
    import torch

    from grader.bench.timing import LoadMeter, set_threads
    from grader.models import load_pair
    from solutions.speculative import painted

    threads = set_threads(args.threads)
    pair = {k: v for k, v in (("target", args.target), ("drafter", args.drafter)) if v}
    target, drafter, tokenizer = load_pair(args.device, **pair)
    generate = implementation.load(args.impl, "speculative").speculative_generate
    baseline = implementation.load(args.impl, "autoregressive").autoregressive_generate
    prompt = tokenizer(args.prompt)["input_ids"]
    print("  ".join(painted(kind, text) for kind, text in LEGEND) + "\n")
    torch.manual_seed(0)
    ids, rate = generate(prompt, drafter, target, tokenizer=tokenizer, gamma=args.gamma,
                         max_gen_len=args.max_gen_len, use_cache=True, debug=True)
    print(f"\n{tokenizer.decode(prompt + ids)}\n")

    def speculative():
        return generate(prompt, drafter, target, gamma=args.gamma, max_gen_len=args.max_gen_len,
                        use_cache=True)[0]

    def autoregressive():
        return baseline(prompt, target, max_gen_len=args.max_gen_len, use_cache=True)

    speedups = []
    with LoadMeter() as load:
        for _ in range(args.repeats):  # interleaved, so both see the same machine load
            spec, ar = (seconds_per_token(work) for work in (speculative, autoregressive))
            speedups.append((ar, spec))
    same = speculative() == autoregressive()
    ar, spec = (statistics.median(s[i] for s in speedups) for i in (0, 1))
    ratios = sorted(a / s for a, s in speedups)
    print(f"acceptance rate {rate:.2f} (γ = {args.gamma}); greedy output identical to the "
          f"target's alone: {'yes' if same else 'NO'}")
    print(f"autoregressive {1 / ar:.0f} tokens/s, speculative {1 / spec:.0f} tokens/s: "
          f"{statistics.median(ratios):.2f}x (median of {args.repeats} interleaved runs each, "
          f"range {ratios[0]:.2f}–{ratios[-1]:.2f}x; {threads} thread{'s' * (threads > 1)}, "
          f"{target.device})")
    print(load.describe())
    return 0 if same else 1


def unfinished_loops(impl: str) -> str:
    """Why `grader demo` cannot run ``impl``'s loops ("" when it can): in a release without the
    reference they are the learner's own, which must then be finished."""
    try:
        loops = [implementation.load(impl, "speculative").speculative_generate,
                 implementation.load(impl, "autoregressive").autoregressive_generate]
    except Exception as exc:  # the learner's module: anything may go wrong importing it
        return f"`grader demo` could not import the loops of {impl}: {type(exc).__name__}: {exc}"
    return meanwhile.unfinished_loops(loops, "`grader demo`")


def seconds_per_token(work) -> float:
    start = time.perf_counter()
    out = work()
    return (time.perf_counter() - start) / max(1, len(out))
