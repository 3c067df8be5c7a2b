"""`grader bench`'s command line: its flags, each value parsed where it is read, and the
``BenchOptions`` they resolve to (grader/bench/measure.py runs them; torch is imported there,
so that parsing any `grader` command line loads none of it).

``--quick`` sets smaller sizes; a size given explicitly (``--prompts``, ``--new-tokens``,
``--repeats``, ``--fast``) wins over it.
"""
import argparse
from dataclasses import dataclass

from grader.arguments import UsageError, positive_int
from grader.bench import NEW_TOKENS, PROMPTS, QUICK_NEW_TOKENS, QUICK_PROMPTS
from grader.bench.timing import DEFAULT_THREADS

REPEATS, QUICK_REPEATS = 5, 2  # timed repetitions of the methods, the trees and the batches
SWEEP_REPEATS, QUICK_SWEEP_REPEATS = 2, 1  # timed repetitions of the γ sweep


def gammas(text: str) -> list[int]:
    """``--gammas``: a range ``LOW-HIGH`` or a comma list, each γ at least 1, e.g. 1-8 or 2,4."""
    try:
        if "-" in text:
            low, high = (int(end) for end in text.split("-"))
            values = list(range(low, high + 1))
        else:
            values = [int(g) for g in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected γ values of at least 1 as a range or a comma list, "
                                         f"such as 1-8 or 2,4; got {text!r}")
    return values


def batch_sizes(text: str) -> list[int]:
    """``--batch``: a comma list of positive ints, returned sorted without repeats."""
    try:
        sizes = sorted({int(size) for size in text.split(",")})
    except ValueError:
        sizes = []
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"expected a comma list of batch sizes of at least 1, "
                                         f"such as 1,2,4,8; got {text!r}")
    return sizes


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threads", type=positive_int, default=DEFAULT_THREADS,
                        help=f"torch threads while timing (default {DEFAULT_THREADS}: the fastest "
                             "for these model sizes on a CPU)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pair", choices=["synthetic", "shipped"], default="synthetic",
                        help="synthetic: the built benchmark pair (default); shipped: the trained one")
    parser.add_argument("--target", help="a local directory or hub id (overrides --pair)")
    parser.add_argument("--drafter", help="a local directory or hub id (with --target)")
    parser.add_argument("--layers", type=positive_int, default=24, help="synthetic target depth")
    parser.add_argument("--hidden", type=positive_int, default=384, help="synthetic width")
    parser.add_argument("--divergence", type=float, default=0.01,
                        help="synthetic: scale of the later layers' output projections (sets α)")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda if available)")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    parser.add_argument("--prompts", type=positive_int, default=None,
                        help=f"held-out prompts (default {PROMPTS}; {QUICK_PROMPTS} with --quick)")
    parser.add_argument("--new-tokens", type=positive_int, default=None,
                        help=f"tokens generated per prompt (default {NEW_TOKENS}; {QUICK_NEW_TOKENS} with --quick)")
    parser.add_argument("--gammas", type=gammas, default="1-8", help="γ values to sweep, e.g. 1-8 or 2,4")
    parser.add_argument("--repeats", type=positive_int, default=None,
                        help=f"interleaved timed repetitions of the methods (default {REPEATS}; "
                             f"{QUICK_REPEATS} with --quick, unless given)")
    parser.add_argument("--quick", action="store_true",
                        help=f"within 3 minutes on a 2-core CPU: {QUICK_PROMPTS} prompts x {QUICK_NEW_TOKENS} "
                             f"tokens, {QUICK_REPEATS} timed repetitions of the methods and {QUICK_SWEEP_REPEATS} "
                             "of the γ sweep, and lesson 7's fast loops only with --fast (compiling them from an "
                             "empty cache takes about 100 s); each size given explicitly wins over --quick's. Its "
                             "speedups run lower than the full bench's: a shorter text shares its prompt's "
                             "forward among fewer tokens, and its last rounds, cut short by the length limit, "
                             "weigh more")
    parser.add_argument("--sampling", action="store_true", help="sample at T = 1 instead of greedy")
    parser.add_argument("--no-hf", action="store_true", help="skip HF assisted generation")
    parser.add_argument("--fast", action=argparse.BooleanOptionalAction, default=None,
                        help="time lesson 7's fast loops (static caches, compiled steps) too: the default "
                             "except under --quick. Their graphs stay in inductor's on-disk cache, so a later "
                             "run at the same γ (see --fast-gamma) compiles in seconds")
    parser.add_argument("--no-compile", action="store_true",
                        help="run lesson 7's fast loops eagerly (no compile time)")
    parser.add_argument("--fast-gamma", type=positive_int, default=None,
                        help="γ of the fast speculative loop (default: the eager sweep's best; "
                             "each γ compiles its own verification step)")
    parser.add_argument("--trees", action="store_true",
                        help="also time lesson 9's token trees against chains of as many drafts")
    parser.add_argument("--eagle", action="store_true",
                        help="also time lesson 11's feature head (the shipped one; the shipped pair only): its "
                             "chain and its dynamic tree beside the drafter's chain")
    parser.add_argument("--suffix", action="store_true",
                        help="also time lesson 12's suffix loops (drafts from the text so far and the corpus; "
                             "the shipped pair only) and its adaptive-length drafter beside autoregressive "
                             "decoding, the drafter's chain, the feature head and HF assisted generation")
    parser.add_argument("--batch", type=batch_sizes, default=None, metavar="B,B,…",
                        help="also time lesson 8's batched speculative decoding against batched "
                             "autoregressive decoding at these batch sizes, e.g. 1,2,4,8,16,32")
    parser.add_argument("--impl", default="solutions", help="whose generate functions to time")
    parser.add_argument("--plot", metavar="PATH", default=None, help="write the γ-sweep plot to PATH")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    add_threads_argument(parser)


@dataclass(frozen=True)
class Sizes:
    """How much the bench runs, with --quick's defaults resolved."""
    prompts: int
    new_tokens: int  # per prompt
    repeats: int  # timed repetitions of the methods, the trees and the batches
    sweep_repeats: int  # timed repetitions of the γ sweep
    fast: bool  # lesson 7's loops timed too


def resolve_sizes(quick: bool, prompts: int | None, new_tokens: int | None, repeats: int | None,
                  fast: bool | None) -> Sizes:
    """The sizes asked for; those not given (None) are the full bench's, or --quick's."""
    def given(value, full, quick_value):
        return (quick_value if quick else full) if value is None else value

    return Sizes(prompts=given(prompts, PROMPTS, QUICK_PROMPTS), new_tokens=given(new_tokens, NEW_TOKENS, QUICK_NEW_TOKENS),
                 repeats=given(repeats, REPEATS, QUICK_REPEATS),
                 sweep_repeats=QUICK_SWEEP_REPEATS if quick else SWEEP_REPEATS, fast=given(fast, True, False))


@dataclass(frozen=True)
class BenchOptions:
    """What one `grader bench` run measures, its command line parsed and its sizes resolved."""
    pair: str  # "synthetic" or "shipped", unless target names a model
    target: str | None
    drafter: str | None
    synthetic_shape: tuple[int, int, float]  # the synthetic pair's (layers, hidden, divergence)
    device: str | None  # None: cuda where there is one, else cpu
    dtype: str  # a key of measure.DTYPES
    gammas: list[int]
    sizes: Sizes
    quick: bool
    sampling: bool  # T = 1 instead of greedy
    hf: bool  # HF assisted generation timed too
    compile: bool  # lesson 7's steps compiled (else eager)
    fast_gamma: int | None
    trees: bool
    eagle: bool
    suffix: bool
    batch: list[int] | None
    impl: str
    plot: str | None
    json: bool
    threads: int

    @classmethod
    def parsed(cls, args: argparse.Namespace) -> "BenchOptions":
        """The options of ``args`` as parsed by ``add_arguments``; UsageError where they cannot run together."""
        for flag, why in (("eagle", "the shipped feature head drafts for the shipped target only"),
                          ("suffix", "its corpus index is of the shipped tokenizer, and it stands beside the "
                                     "shipped feature head")):
            if getattr(args, flag) and (args.pair != "shipped" or args.target):
                raise UsageError(f"--{flag} needs --pair shipped (and no --target): {why}")
        return cls(pair=args.pair, target=args.target, drafter=args.drafter,
                   synthetic_shape=(args.layers, args.hidden, args.divergence), device=args.device, dtype=args.dtype,
                   gammas=args.gammas, sizes=resolve_sizes(args.quick, args.prompts, args.new_tokens, args.repeats,
                                                           args.fast),
                   quick=args.quick, sampling=args.sampling, hf=not args.no_hf, compile=not args.no_compile,
                   fast_gamma=args.fast_gamma, trees=args.trees, eagle=args.eagle, suffix=args.suffix,
                   batch=args.batch, impl=args.impl,
                   plot=args.plot, json=args.json, threads=args.threads)


def run(options: argparse.Namespace) -> int:
    bench = BenchOptions.parsed(options)
    # torch and transformers are imported here, once the command line is good
    from grader.bench import measure

    return measure.run(bench, options.started)
