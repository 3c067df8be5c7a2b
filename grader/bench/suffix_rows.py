"""`grader bench --suffix`: lesson 12's drafts without a model, side by side in one run with
autoregressive decoding, the token drafter's chain, lesson 11's feature head and HF assisted
generation.

Methods, timed in the same interleaved repetitions over the bench's prompts: autoregressive
decoding; the token drafter's chain at the run's γ (lesson 4's loop, the sweep's best fixed γ);
``adaptive_speculative_generate`` (the same loop, its length set by the drafter's confidence, at
most ``ADAPTIVE_GAMMA`` drafts, at each of ``ADAPTIVE_THRESHOLDS``); the feature head's chain at
``HEAD_GAMMA``; HF assisted generation (unless ``--no-hf``); ``suffix_speculative_generate``
over the text alone and over the text and the corpus, the latter also with trees of at most
``NARROW_MAX_NODES`` nodes; with the fast loops, lesson 7's fast autoregressive loop and
``fast_suffix_speculative_generate`` at both tree sizes.

Tokens per target call are counted from the target's forwards in one untimed pass (the
prefill included). Beside a suffix row, what its index predicted: every round's tree has
scores that sum to the number of its nodes the index expects accepted (SuffixDecoding's
estimate), so the index predicts ``(1 + Σ_rounds (1 + Σ scores)) / (1 + rounds)`` tokens
per target call; the two differ by how far the corpus's frequencies are from the target's law.
"""
from contextlib import contextmanager

from tqdm import tqdm

from grader.bench import NARROW_MAX_NODES, speedup
from grader.bench.results import SuffixReport, SuffixRow
from grader.observers.recording import RecordingModel

ADAPTIVE_GAMMA = 8  # the most drafts a round of the adaptive loop makes
ADAPTIVE_THRESHOLDS = (0.4, 0.6)  # the drafter's confidence below which it stops drafting
HEAD_GAMMA = 4
TEXT_ONLY, WITH_CORPUS, FAST = "suffix (text only)", "suffix (text + corpus)", "fast suffix (text + corpus)"
NARROW, FAST_NARROW = (f"{name[:-1]}, ≤ {NARROW_MAX_NODES} nodes)" for name in (WITH_CORPUS, FAST))


def suffix_runs(setup: speedup.Setup, suffix, corpus, target=None) -> dict:
    """name -> a function of one prompt running a suffix loop (``target``: a recorder in
    place of the setup's); the fast one only where the setup holds the fast loops."""
    model = target or setup.target
    common = dict(logits_processor=setup.processor, max_gen_len=setup.new_tokens, eos_tokens_id=speedup.NO_EOS)
    narrow = dict(common, max_nodes=NARROW_MAX_NODES)
    runs = {TEXT_ONLY: lambda prompt: suffix.suffix_speculative_generate(prompt, model, None, **common)[0],
            WITH_CORPUS: lambda prompt: suffix.suffix_speculative_generate(prompt, model, corpus, **common)[0],
            NARROW: lambda prompt: suffix.suffix_speculative_generate(prompt, model, corpus, **narrow)[0]}
    if setup.fast is not None and target is None:
        for name, options in ((FAST, common), (FAST_NARROW, narrow)):
            runs[name] = lambda prompt, options=options: suffix.fast_suffix_speculative_generate(
                prompt, model, corpus, compile=setup.fast.compile, **options)[0]
    return runs


def other_runs(setup: speedup.Setup, suffix, eagle, gamma: int, hf: bool) -> dict:
    """name -> a function of one prompt: the methods the suffix rows stand beside."""
    common = dict(logits_processor=setup.processor, max_gen_len=setup.new_tokens, eos_tokens_id=speedup.NO_EOS)
    runs = {"autoregressive": speedup.autoregressive(setup), f"drafter chain γ={gamma}": speedup.speculative(setup, gamma)}
    for threshold in ADAPTIVE_THRESHOLDS:
        runs[adaptive_name(threshold)] = lambda prompt, t=threshold: suffix.adaptive_speculative_generate(
            prompt, setup.drafter, setup.target, gamma=ADAPTIVE_GAMMA, threshold=t, **common)[0]
    head = eagle.load_feature_head(setup.target)
    runs[f"head chain γ={HEAD_GAMMA}"] = lambda prompt: eagle.eagle_generate(
        prompt, setup.target, head, gamma=HEAD_GAMMA, **common)[0]
    if hf:
        runs[f"HF assisted γ={gamma}"] = speedup.hf_assisted(setup, gamma, constant=True)
    if setup.fast is not None:
        runs["fast autoregressive"] = speedup.fast_methods(setup, gamma)["fast autoregressive"]
    return runs


def adaptive_name(threshold: float) -> str:
    return f"adaptive γ≤{ADAPTIVE_GAMMA} (confidence ≥ {threshold})"


@contextmanager
def recorded_trees(suffix):
    """While open, every ``speculation_tree`` the module's loops grow appends the sum of its
    scores to the list yielded (the module's own function, restored at the end)."""
    original, sums = suffix.speculation_tree, []

    def recording(*args, **kwargs):
        tree = original(*args, **kwargs)
        sums.append(sum(tree[2]))
        return tree

    suffix.speculation_tree = recording
    try:
        yield sums
    finally:
        suffix.speculation_tree = original


def counted(setup: speedup.Setup, suffix, corpus, name: str) -> tuple[float, float]:
    """``(tokens per target call, as the index predicted)`` of the suffix loop ``name``, over
    every prompt, in one untimed pass. A round grows one tree per index (the text's, and the
    corpus's when given) and keeps the one whose scores sum higher."""
    measured, predicted = [], []
    for prompt in setup.prompts:
        recorder = RecordingModel(setup.target)
        with recorded_trees(suffix) as sums:
            made = len(suffix_runs(setup, suffix, corpus, recorder)[name](prompt))
        per_round = 1 if name == TEXT_ONLY else 2
        rounds = [max(sums[i:i + per_round]) for i in range(0, len(sums), per_round)]
        measured.append((made, len(recorder.forwards)))
        predicted.append((1 + sum(1 + expected for expected in rounds), 1 + len(rounds)))
    return tuple(sum(m for m, _ in pairs) / sum(c for _, c in pairs) for pairs in (measured, predicted))


def run_suffix(setup: speedup.Setup, suffix, eagle, gamma: int, hf: bool, repeats: int,
               corpus=None) -> SuffixReport:
    """The rows of ``--suffix`` (``suffix``, ``eagle``: the implementation's lesson 12 and 11
    modules), at the drafter's ``gamma`` (the sweep's best fixed γ); ``corpus``: an index in
    place of the shipped corpus's (``suffix.corpus_index()``, built once and cached on disk,
    a minute the first time)."""
    corpus = corpus if corpus is not None else suffix.corpus_index(progress=True)
    runs = {**other_runs(setup, suffix, eagle, gamma, hf), **suffix_runs(setup, suffix, corpus)}
    for run in tqdm(runs.values(), desc="bench: suffix rows' first calls (warm-up, compiling)", leave=False):
        run(setup.prompts[0])
    with tqdm(total=repeats * len(runs), desc="bench: suffix rows", unit="run", leave=False) as progress:
        timings = speedup.time_methods(setup, runs, repeats, progress)
    counts = {name: counted(setup, suffix, corpus, name) for name in (TEXT_ONLY, WITH_CORPUS, NARROW)}
    counts[FAST], counts[FAST_NARROW] = counts[WITH_CORPUS], counts[NARROW]  # the same trees and walks
    ar, tokens = timings.median("autoregressive"), setup.new_tokens * len(setup.prompts)
    fast_ar = timings.median("fast autoregressive") if "fast autoregressive" in runs else None

    def row(name: str) -> SuffixRow:
        seconds = timings.median(name)
        measured, predicted = counts.get(name, (None, None))
        return SuffixRow(name, tokens / seconds, ar / seconds, measured, predicted,
                         fast_ar / seconds if fast_ar and name.startswith("fast") else None)
    fixed = timings.median(f"drafter chain γ={gamma}")
    return SuffixReport(rows=[row(name) for name in runs],
                        adaptive_vs_fixed={adaptive_name(t): fixed / timings.median(adaptive_name(t))
                                           for t in ADAPTIVE_THRESHOLDS}, corpus_tokens=len(corpus))


def print_suffix(report: SuffixReport) -> None:
    print(f"\nlesson 12's drafts without a model (corpus index of {report.corpus_tokens:,} tokens): tokens per "
          "target call measured, and as the index predicted (Σ of each round's tree scores)")
    print(f"{'method':<40} {'tokens/s':>9} {'speedup':>8} {'vs fast AR':>10} {'tokens/call':>12} {'predicted':>10}")
    for r in report.rows:
        fast = f"{r.speedup_vs_fast_autoregressive:9.2f}x" if r.speedup_vs_fast_autoregressive else f"{'—':>10}"
        calls = f"{r.tokens_per_target_call:12.2f}" if r.tokens_per_target_call else f"{'—':>12}"
        predicted = f"{r.predicted_tokens_per_target_call:10.2f}" if r.predicted_tokens_per_target_call else f"{'—':>10}"
        print(f"{r.method:<40} {r.tokens_per_second:>9.1f} {r.speedup_vs_autoregressive:7.2f}x {fast} {calls} {predicted}")
    for name, ratio in report.adaptive_vs_fixed.items():
        print(f"{name}: {ratio:.2f}x the drafter chain at the sweep's best fixed γ")
