"""`grader audit SAMPLER`: draw texts from a speculative sampler and test that they follow the
target's law, with the power of the draws made stated beside the verdict."""
import argparse
import sys
from dataclasses import replace
from pathlib import Path

from grader.arguments import positive_int
from grader.audit import BUILT_IN, LOOPS, SUFFIX_LOOPS

DEFAULT_TEXTS = 96
QUICK_TEXTS = 16  # --quick: under a minute on a busy 2-core CPU, power stated as for the default
DEFAULT_NEW_TOKENS = 40
PROMPTS = 8
PROMPT_LENGTH = 32
# The course's loops take any logits processor and must be exact under each. At the default
# settings (T = 0.8, top-p 0.95) the processed law is close to the raw softmax, so a loop that
# hands the verifier an unprocessed q or p barely moves its output law (lesson 11's q that
# skips the processor passed --quick: drafter region and mode z = +3.3). At half the
# temperature (as the checks' T = 0.6 law case) the same bug moves it about twice as much per
# token. So a course loop draws as many texts again at temperature / COLDER (half as many left
# the bug at region z = +3.9, p = 9e-5, a hair under the pooled threshold 1.25e-4).
COLDER = 2


def sampler(text: str) -> str:
    """SAMPLER: a built-in sampler's name or an adapter file that exists."""
    if text not in BUILT_IN and not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"no adapter file at {text!r}; expected one of {', '.join(BUILT_IN)} "
                                         "or a .py file defining make_adapter(target, drafter, settings, new_tokens)")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sampler", metavar="SAMPLER", type=sampler,
                        help="hf-assisted, prompt-lookup, lessons (the course's loops, see --loop and "
                             "--impl) or a .py file defining make_adapter(target, drafter, settings, new_tokens)")
    parser.add_argument("--pair", choices=["shipped", "tiny"], default="shipped",
                        help="shipped: the trained pair, PIT, support and drafter martingale tests (default); tiny: "
                             "the enumerable pairs, exact-law tests")
    parser.add_argument("--target", help="a local model directory instead of the shipped target")
    parser.add_argument("--drafter", help="a local model directory instead of the shipped drafter")
    parser.add_argument("--impl", default="lessons", help="lessons (default), solutions, a module or a .py file")
    parser.add_argument("--loop", choices=list(LOOPS), default="speculative_generate",
                        help="which of the course's loops `lessons` audits (the eagle loops draft with the "
                             "target's feature head: the shipped one, or on --pair tiny the checks' tiny one)")
    parser.add_argument("--texts", type=positive_int, default=None,
                        help=f"texts drawn (shipped pair; default {DEFAULT_TEXTS}, {QUICK_TEXTS} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_TEXTS} texts instead of {DEFAULT_TEXTS}: an answer in under a minute, "
                             "with a weaker power (stated in the report)")
    parser.add_argument("--new-tokens", type=positive_int, default=DEFAULT_NEW_TOKENS, help="tokens per text")
    parser.add_argument("--draws", type=positive_int, default=None, help="texts per case on the tiny pair")
    parser.add_argument("--gamma", type=positive_int, default=4, help="drafts per round")
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--top-k", type=int, default=None)
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampler's texts and the PIT's uniforms")
    parser.add_argument("--figure", metavar="PATH", default=None,
                        help="write the figure (the u's histogram, every test's p-value) to PATH")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--threads", type=positive_int, default=None, help="torch threads")


def run(args: argparse.Namespace) -> int:
    """Audit ``args.sampler``: 0 when no test rejects its law, 1 when one does, 2 when it cannot be run."""
    import torch

    from grader.audit import adapters

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.texts is None:  # an explicit --texts wins over --quick's
        args.texts = QUICK_TEXTS if args.quick else DEFAULT_TEXTS
    try:
        settings = adapters.Sampling(args.temperature, args.top_k, args.top_p)
        if args.pair == "tiny":
            return run_exact(args)
        return run_shipped(args, settings)
    except adapters.AdapterError as exc:
        print(f"✘ {exc}", file=sys.stderr)
        return 2


def run_exact(args) -> int:
    from grader.audit import report
    from grader.audit.exact import exact_audit

    tests, cases = exact_audit(args.sampler, args.seed, args.impl, args.loop, args.draws)
    header = {"sampler": args.sampler if args.sampler != "lessons" else f"{args.loop} from {args.impl}",
              "pair": "tiny enumerable pairs (grader/checks/speculative_generate.py's law cases)",
              "seed": args.seed}
    print(report.as_json(header, tests, cases=[vars(c) for c in cases]) if args.json
          else report.exact_text(header, tests, cases))
    return 0 if not any(t.rejected for t in tests) else 1


def run_shipped(args, settings) -> int:
    from grader.audit import adapters, report
    from grader.bench.timing import Phases
    from grader.models import SHIPPED_DRAFTER, SHIPPED_TARGET, load_pair

    target, drafter, tokenizer = load_pair(args.device, target=args.target or SHIPPED_TARGET,
                                           drafter=args.drafter or SHIPPED_DRAFTER)
    corpus = shipped_corpus(args) if args.sampler == "lessons" and args.loop in SUFFIX_LOOPS else None
    adapter = adapters.make(args.sampler, target, drafter, settings, args.new_tokens, args.gamma, args.impl, args.loop,
                            corpus=corpus)
    if not args.json:
        print(f"drawing {args.texts} texts × {args.new_tokens} tokens from {adapter.name}"
              + ("" if args.texts <= QUICK_TEXTS else f" (--quick draws {QUICK_TEXTS}: a quicker answer, a "
                 "weaker power)"), file=sys.stderr, flush=True)
    with Phases("grader audit") as phases:  # each phase's time and the other work beside it, as bench does
        header, record, tests, statement = shipped_audit(adapter, tokenizer, args.texts, args.new_tokens, args.seed,
                                                         drafter, progress=not args.json, phases=phases)
    header = {"sampler": header.pop("sampler"),
              "pair": f"target {args.target or 'shipped'}, drafter {args.drafter or 'shipped'}", **header,
              "machine load": phases.whole.conditions()}
    warning = phases.warning()  # other processes slowed a phase: the times above are not the audit's own
    if warning:
        header["warning"] = warning.removeprefix("WARNING: ")
        print(warning, file=sys.stderr, flush=True)
    if args.figure:
        report.figure(args.figure, record, tests, f"{adapter.name}; {settings}; seed {args.seed}")
        header["figure"] = args.figure
    print(report.as_json(header, tests, record.token_stats, power=vars(statement)) if args.json
          else report.text(header, tests, statement, record.token_stats))
    return 0 if not any(t.rejected for t in tests) else 1


def shipped_corpus(args):
    """The corpus index lesson 12's loops read on the shipped target (built once and cached on
    disk, with a progress bar); None under another --target, whose tokenizer it does not fit."""
    from grader import implementation

    if args.target:
        return None
    try:
        return implementation.load(args.impl, "suffix").corpus_index(progress=not args.json)
    except (implementation.ImplementationNotFound, ImportError, AttributeError):
        return None  # the adapter then says what it cannot take from --impl


def colder_settings(settings):
    """The second setting a course loop is audited at: its own at temperature / COLDER."""
    return replace(settings, temperature=settings.temperature / COLDER)


def colder_texts(adapter, texts: int) -> int:
    """How many texts a sampler draws at ``colder_settings`` beside its ``texts``: as many for
    the course's loops, none for other samplers, whose settings are what they are audited for."""
    from grader.audit.adapters import CourseLoop

    return texts if isinstance(adapter, CourseLoop) else 0


def shipped_audit(adapter, tokenizer, texts: int, new_tokens: int, seed: int, drafter, progress: bool = False,
                  phases=None, colder: int | None = None):
    """Draw ``texts`` texts of ``new_tokens`` tokens from ``adapter`` after held-out prompts
    and test them: ``(header, record, tests, statement)`` for `report.text` (``drafter``
    gives q where the sampler has no drafter model of its own; ``progress`` shows bars on stderr;
    ``phases``, a grader/bench/timing.py ``Phases``, times each phase and the load beside it).
    ``colder`` texts more (``colder_texts`` by default) are drawn at ``colder_settings``
    and tested in the same family; the record holds them after the ``texts``, and the power
    statement is that of the ``texts`` at the adapter's settings."""
    from grader.audit.draws import draw, joined, phase
    from grader.audit.pit import audit_tests, pooled_threshold
    from grader.audit.power import power_statement
    from grader.models.corpus import held_out_prompts

    prompts = held_out_prompts(tokenizer, PROMPTS, PROMPT_LENGTH)
    head = getattr(adapter, "region_model", None)  # lesson 11's loops: their feature head's law
    record = draw(adapter, prompts, texts, new_tokens, seed, region_model=head or drafter, progress=progress,
                  phases=phases)
    colder = colder_texts(adapter, texts) if colder is None else colder
    whole = record
    if colder:
        settings = colder_settings(adapter.settings)
        with phase(phases, f"{colder} texts at {settings}"):
            whole = joined(record, draw(adapter.at(settings), prompts, colder, new_tokens, seed,
                                        region_model=head or drafter, progress=progress, first_text=texts))
    with phase(phases, "tests and power"):
        tests = audit_tests(whole.token_stats)
        statement = power_statement(record, adapter.settings, pooled_threshold(tests))
    region = ("the sampler's drafter" if adapter.drafter is not None
              else "the feature head's law along the text (the target's features at every position)" if head
              else "the pair's drafter (the sampler has no drafter model of its own)")
    header = {"sampler": adapter.name, "settings": str(adapter.settings), "seed": seed,
              "draws": f"{texts} texts × {new_tokens} tokens = {record.tokens} tokens after "
                       f"{len(prompts)} held-out prompts of {PROMPT_LENGTH} tokens"
                       + (f", and {colder} more at {colder_settings(adapter.settings)} (a course loop must be exact "
                          "under any processor; a colder one is further from the raw softmax)" if colder else "")
                       + f", {whole.seconds:.0f} s",
              "region": region}
    return header, whole, tests, statement
