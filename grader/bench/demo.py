"""`grader demo [PROMPT]`: the course's fastest exact loop on the shipped pair (lesson 12's fast
suffix loop), or with ``--loop speculative`` lesson 4's loop coloured round by round; its text,
what each round kept, and its speedup over the matching autoregressive loop, measured on the
spot with the machine's load beside it."""
import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import NamedTuple

from grader import implementation, meanwhile
from grader.bench import NARROW_MAX_NODES
from grader.arguments import positive_int
from grader.bench.command import add_threads_argument

FAST_SUFFIX, SPECULATIVE = "fast-suffix", "speculative"  # --loop: lesson 12's fastest loop, lesson 4's
LEGEND = (("accepted", "accepted draft"), ("rejected", "rejected draft"),
          ("correction", "target's correction"), ("bonus", "bonus token"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("prompt", nargs="?", default=None,
                        help="the text to continue (default: the bench's first held-out prompt, 48 tokens of "
                             "standard-library source from a file the pair was not trained on)")
    parser.add_argument("--loop", choices=[FAST_SUFFIX, SPECULATIVE], default=FAST_SUFFIX,
                        help=f"{FAST_SUFFIX} (default): lesson 12's fast suffix loop, the course's fastest exact "
                             f"loop, against lesson 7's fast autoregressive loop; {SPECULATIVE}: lesson 4's loop "
                             "drafted by the drafter model, coloured round by round, against autoregressive decoding")
    parser.add_argument("--no-compile", action="store_true",
                        help=f"{FAST_SUFFIX}: run both loops' steps eagerly (no compile time, slower steps)")
    parser.add_argument("--max-nodes", type=positive_int, default=None,
                        help=f"{FAST_SUFFIX}: the most tree nodes a round verifies (default: "
                             f"{NARROW_MAX_NODES} on a CPU, where the fixed-width verifying forward's cost grows "
                             "with its width; the loop's own default elsewhere)")
    parser.add_argument("--gamma", type=positive_int, default=4, help=f"{SPECULATIVE}: drafts per round")
    parser.add_argument("--max-gen-len", type=positive_int, default=96)
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs of each method")
    parser.add_argument("--target", help="a local directory or hub id instead of the shipped target")
    parser.add_argument("--drafter", help="a local directory or hub id instead of the shipped drafter")
    parser.add_argument("--device", default=None)
    parser.add_argument("--impl", default=None, help="whose loops to run (default: solutions; in a release "
                        "without the reference, your lessons, once finished)")
    add_threads_argument(parser)


def run(args: argparse.Namespace) -> int:
    args.impl = args.impl or ("solutions" if implementation.has_reference() else implementation.DEFAULT_IMPL)
    unfinished = unfinished_loops(args.impl, args.loop)
    if unfinished:
        print(f"✘ {unfinished}", file=sys.stderr)
        return 1
    import torch

    from grader.bench.timing import LoadMeter, set_threads
    from grader.models import load_pair

    threads = set_threads(args.threads)
    pair = {k: v for k, v in (("target", args.target), ("drafter", args.drafter)) if v}
    target, drafter, tokenizer = load_pair(args.device, **pair)
    if args.prompt is None:
        from grader.models.corpus import held_out_prompts

        prompt = held_out_prompts(tokenizer, 1)[0]
        print("prompt: the bench's first held-out prompt (a file the pair was not trained on); "
              "pass your own as `grader demo \"TEXT\"`")
    else:
        prompt = tokenizer(args.prompt)["input_ids"]
    torch.manual_seed(0)
    demo = (suffix_demo if args.loop == FAST_SUFFIX else speculative_demo)(args, prompt, target, drafter, tokenizer)
    speedups = []
    with LoadMeter() as load:
        for _ in range(args.repeats):  # interleaved, so both see the same machine load
            spec, ar = (seconds_per_token(work) for work in (demo.speculative, demo.autoregressive))
            speedups.append((ar, spec))
    same = demo.speculative() == demo.autoregressive()
    ar, spec = (statistics.median(s[i] for s in speedups) for i in (0, 1))
    ratios = sorted(a / s for a, s in speedups)
    print(f"{demo.accepted}; greedy output identical to the target's alone: {'yes' if same else 'NO'}")
    print(f"{demo.baseline_name} {1 / ar:.0f} tokens/s, {demo.name} {1 / spec:.0f} tokens/s: "
          f"{statistics.median(ratios):.2f}x (median of {args.repeats} interleaved runs each, "
          f"range {ratios[0]:.2f}–{ratios[-1]:.2f}x; {threads} thread{'s' * (threads > 1)}, "
          f"{target.device})")
    print(load.describe())
    return 0 if same else 1


class Demo(NamedTuple):
    """One loop of the demo against its baseline, both functions of no argument returning ids."""
    name: str  # as the timing line names it
    speculative: Callable[[], list[int]]
    baseline_name: str
    autoregressive: Callable[[], list[int]]
    accepted: str  # the line saying how much each round kept


def suffix_demo(args, prompt: list[int], target, drafter, tokenizer) -> Demo:
    """Lesson 12's fast suffix loop (drafts from the text so far and the corpus, one static
    cache, the tree verified in one compiled step) against lesson 7's fast autoregressive loop:
    the fastest exact loop the course builds against the fastest plain one."""
    suffix = implementation.load(args.impl, "suffix")
    baseline = implementation.load(args.impl, "fast").fast_autoregressive_generate
    corpus = suffix.corpus_index(tokenizer, progress=True)  # built once (a minute), then read from disk
    compile = not args.no_compile
    max_nodes = args.max_nodes or (NARROW_MAX_NODES if target.device.type == "cpu" else None)
    width = {"max_nodes": max_nodes} if max_nodes else {}  # else the loop's own default
    default_nodes = "the loop's default number of"

    def speculative_run():
        return suffix.fast_suffix_speculative_generate(prompt, target, corpus, max_gen_len=args.max_gen_len,
                                                       compile=compile, **width)

    def autoregressive():
        return baseline(prompt, target, max_gen_len=args.max_gen_len, compile=compile)

    print(f"loop: lesson 12's fast_suffix_speculative_generate (drafts: the longest suffix of the text "
          f"found in the text so far or in the corpus of {len(corpus):,} tokens, its frequent continuations "
          f"as a tree of at most {max_nodes or default_nodes} nodes; one static cache; the tree verified in "
          f"one {'compiled' if compile else 'eager'} step), against lesson 7's fast_autoregressive_generate",
          flush=True)
    start = time.perf_counter()
    ids, mean_accepted = speculative_run()  # the first calls compile (inductor keeps the graphs on disk)
    autoregressive()
    print(f"first calls{' (compiling)' if compile else ''}: {time.perf_counter() - start:.1f} s, not in the "
          f"speeds below\n\n{tokenizer.decode(prompt + ids)}\n")
    return Demo("fast suffix", lambda: speculative_run()[0], "fast autoregressive", autoregressive,
                f"{mean_accepted + 1:.2f} tokens per target forward (suffix drafts accepted per round "
                f"{mean_accepted:.2f}, plus the target's own)")


def speculative_demo(args, prompt: list[int], target, drafter, tokenizer) -> Demo:
    """Lesson 4's loop drafted by the drafter model, coloured round by round, against
    autoregressive decoding, both with a DynamicCache."""
    from solutions.speculative import painted

    generate = implementation.load(args.impl, "speculative").speculative_generate
    baseline = implementation.load(args.impl, "autoregressive").autoregressive_generate
    print(f"loop: lesson 4's speculative_generate (the drafter model drafts γ = {args.gamma} tokens a round), "
          "against autoregressive_generate\n")
    print("  ".join(painted(kind, text) for kind, text in LEGEND) + "\n")
    ids, rate = generate(prompt, drafter, target, tokenizer=tokenizer, gamma=args.gamma,
                         max_gen_len=args.max_gen_len, use_cache=True, debug=True)
    print(f"\n{tokenizer.decode(prompt + ids)}\n")
    return Demo("speculative", lambda: generate(prompt, drafter, target, gamma=args.gamma,
                                                max_gen_len=args.max_gen_len, use_cache=True)[0],
                "autoregressive", lambda: baseline(prompt, target, max_gen_len=args.max_gen_len, use_cache=True),
                f"acceptance rate {rate:.2f} (γ = {args.gamma})")


def unfinished_loops(impl: str, loop: str) -> str:
    """Why `grader demo` cannot run ``impl``'s ``loop`` and its baseline ("" when it can): in a
    release without the reference they are the learner's own, which must then be finished."""
    try:
        loops = ([implementation.load(impl, "suffix").fast_suffix_speculative_generate,
                  implementation.load(impl, "fast").fast_autoregressive_generate] if loop == FAST_SUFFIX else
                 [implementation.load(impl, "speculative").speculative_generate,
                  implementation.load(impl, "autoregressive").autoregressive_generate])
    except Exception as exc:  # the learner's module: anything may go wrong importing it
        return f"`grader demo` could not import the loops of {impl}: {type(exc).__name__}: {exc}"
    return meanwhile.unfinished_loops(loops, "`grader demo`")


def seconds_per_token(work) -> float:
    start = time.perf_counter()
    out = work()
    return (time.perf_counter() - start) / max(1, len(out))
