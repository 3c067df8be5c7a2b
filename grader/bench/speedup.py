"""`grader bench`: speculative decoding side by side with autoregressive decoding and
Hugging Face assisted generation, on the same prompts, in one run.

Methods are timed in interleaved repetitions after a warm-up (the γ sweep's values of γ
with autoregressive decoding, then every method at the best γ), so that other work on the
machine slows them alike; each figure is the median over repetitions of the time for all
prompts. Speedups are ratios of medians timed in the same interleaved repetitions. α (Σ min(p, q) along the generated text), the cost ratio c and
the tokens emitted per target call are measured too, and set against the theory of
Leviathan et al.: (1 − α^{γ+1}) / (1 − α) tokens per target call, and a speedup of
(1 − α^{γ+1}) / ((1 − α)(γc + 1)).
"""
import statistics
import time
from dataclasses import dataclass, field, replace

import torch
from tqdm import tqdm
from transformers import DynamicCache
from transformers.utils import logging as transformers_logging

from grader.bench import roofline
from grader.bench.results import Comparison, FastResult, SweepRow, TimeBreakdown
from grader.bench.timing import Phases
from grader.observers.recording import RecordingModel

NO_EOS = -1  # generation runs to max_gen_len, so every method emits the same count


@dataclass(frozen=True)
class FastLoops:
    """Lesson 7's loops, timed beside the rest when a ``Setup`` holds them."""
    generate: object  # fast_speculative_generate
    autoregressive_generate: object  # fast_autoregressive_generate
    compile: bool = True  # the steps compiled (False: the same loops, eager)
    gamma: int | None = None  # the fast speculative loop's γ; None: the eager sweep's best


@dataclass(frozen=True)
class Setup:
    """What the bench times: the pair, the prompts and the functions under test."""
    target: object
    drafter: object
    prompts: list[list[int]]
    new_tokens: int  # generated per prompt
    processor: object  # a solutions/lessons logits processor
    autoregressive_generate: object
    speculative_generate: object
    device: str
    fast: FastLoops | None = None


@dataclass
class Timings:
    seconds: dict[str, list[float]] = field(default_factory=dict)

    def add(self, method: str, seconds: float) -> None:
        self.seconds.setdefault(method, []).append(seconds)

    def median(self, method: str) -> float:
        return statistics.median(self.seconds[method])


def theory_tokens_per_call(alpha: float, gamma: int) -> float:
    return gamma + 1.0 if alpha >= 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)


def theory_speedup(alpha: float, gamma: int, c: float) -> float:
    return theory_tokens_per_call(alpha, gamma) / (gamma * c + 1)


def methods(setup: Setup, gamma: int, hf: bool) -> dict:
    """name -> a function of one prompt that generates ``setup.new_tokens`` tokens."""
    found = {"autoregressive": autoregressive(setup), f"speculative γ={gamma}": speculative(setup, gamma)}
    if hf:
        found[f"HF assisted γ={gamma}"] = hf_assisted(setup, gamma, constant=True)
        found["HF assisted (its defaults)"] = hf_assisted(setup, gamma, constant=False)
    if setup.fast is not None:
        found.update(fast_methods(setup, setup.fast.gamma or gamma))
    return found


def fast_methods(setup: Setup, gamma: int) -> dict:
    """Lesson 7's loops: a static cache per model and compiled steps."""
    n, proc, fast = setup.new_tokens, setup.processor, setup.fast
    return {
        "fast autoregressive": lambda prompt: fast.autoregressive_generate(
            prompt, setup.target, max_gen_len=n, logits_processor=proc, eos_tokens_id=NO_EOS,
            compile=fast.compile),
        f"fast speculative γ={gamma}": lambda prompt: fast.generate(
            prompt, setup.drafter, setup.target, gamma=gamma, logits_processor=proc,
            max_gen_len=n, eos_tokens_id=NO_EOS, compile=fast.compile)[0],
    }


def autoregressive(setup: Setup):
    return lambda prompt: setup.autoregressive_generate(
        prompt, setup.target, max_gen_len=setup.new_tokens, logits_processor=setup.processor,
        eos_tokens_id=NO_EOS, use_cache=True)


def speculative(setup: Setup, gamma: int, recorder: RecordingModel | None = None):
    def run(prompt):
        return setup.speculative_generate(
            prompt, setup.drafter, recorder or setup.target, gamma=gamma,
            logits_processor=setup.processor, max_gen_len=setup.new_tokens,
            eos_tokens_id=NO_EOS, use_cache=True)
    return run


def hf_assisted(setup: Setup, gamma: int, constant: bool):
    """``target.generate(assistant_model=drafter)`` with the same length and sampling."""
    transformers_logging.set_verbosity_error()  # its notes on generation arguments are noise here
    greedy = type(setup.processor).__name__ == "GreedyProcessor"
    sampling = ({"do_sample": False} if greedy else
                {"do_sample": True, "temperature": setup.processor.temperature, "top_k": None,
                 "top_p": None})

    def run(prompt):
        config = setup.drafter.generation_config
        if constant:  # the same drafts per round as ours
            config.num_assistant_tokens, config.num_assistant_tokens_schedule = gamma, "constant"
        else:
            config.num_assistant_tokens, config.num_assistant_tokens_schedule = 20, "heuristic"
        ids = torch.tensor([prompt], device=setup.device)
        return setup.target.generate(ids, attention_mask=torch.ones_like(ids),
                                     assistant_model=setup.drafter, max_new_tokens=setup.new_tokens,
                                     min_new_tokens=setup.new_tokens, eos_token_id=None,
                                     pad_token_id=0, **sampling)
    return run


def time_methods(setup: Setup, runs: dict, repeats: int, progress: tqdm) -> Timings:
    """Interleaved repetitions: every repetition runs every method over every prompt."""
    timings = Timings()
    names = list(runs)
    for repeat in range(repeats):
        order = names[repeat % len(names):] + names[: repeat % len(names)]  # rotate the order
        for name in order:
            timings.add(name, timed(lambda: [runs[name](p) for p in setup.prompts], setup.device))
            progress.update(1)
    return timings


def timed(work, device: str) -> float:
    synchronize(device)
    start = time.perf_counter()
    work()
    synchronize(device)
    return time.perf_counter() - start


def synchronize(device: str) -> None:
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


class TimedModel:
    """Behaves like the wrapped model; records the seconds each forward takes."""

    def __init__(self, model, device: str):
        self.model, self.device = model, device
        self.samples: list[float] = []

    def __call__(self, *args, **kwargs):
        synchronize(self.device)
        start = time.perf_counter()
        out = self.model(*args, **kwargs)
        synchronize(self.device)
        self.samples.append(time.perf_counter() - start)
        return out

    def __getattr__(self, name):
        return getattr(self.model, name)


@torch.no_grad()
def time_breakdown(setup: Setup, gamma: int) -> tuple[TimeBreakdown, list[list[int]]]:
    """Where one speculative run over all prompts spends its time, in seconds; and the
    texts it generated (prompt + output).

    Target forwards (the prefill and one verification per round), drafter forwards (one
    per draft), and the rest: sampling, verification, cache roll-back and bookkeeping of
    the loop itself. ``verification_forward_ms``: the median target forward after each
    prompt's prefill; set against a decode step it shows what scoring γ + 1 tokens at
    once costs.
    """
    target, drafter = TimedModel(setup.target, setup.device), TimedModel(setup.drafter, setup.device)
    texts, prefills = [], []

    def generate_all():
        for prompt in setup.prompts:
            prefills.append(len(target.samples))  # the first target forward of each prompt
            ids, _ = setup.speculative_generate(prompt, drafter, target, gamma=gamma,
                                                logits_processor=setup.processor,
                                                max_gen_len=setup.new_tokens,
                                                eos_tokens_id=NO_EOS, use_cache=True)
            texts.append(prompt + ids)
    total = timed(generate_all, setup.device)
    verifications = [s for i, s in enumerate(target.samples) if i not in prefills]
    target_seconds, drafter_seconds = sum(target.samples), sum(drafter.samples)
    return TimeBreakdown(total=total, target_forwards=target_seconds, drafter_forwards=drafter_seconds,
                         target_calls=len(target.samples), drafter_calls=len(drafter.samples),
                         verification_forward_ms=1000 * statistics.median(verifications),
                         loop=total - target_seconds - drafter_seconds), texts


def sweep(setup: Setup, gammas: list[int], repeats: int, progress: tqdm) -> dict[int, SweepRow]:
    """Speculative decoding at each γ of ``gammas``, and autoregressive decoding, timed in
    the same interleaved repetitions (so a burst of other work slows them alike): per γ
    its median time, its speedup over autoregressive, and from the same runs the tokens
    emitted per target call and the mean acceptance rate. The target is wrapped to count
    its forwards (a Python call each, nothing next to a forward's cost); the prefill
    forward, which emits the first token alone, is not a round. The rows' theory is left
    to ``analysis``."""
    recorders = {gamma: RecordingModel(setup.target) for gamma in gammas}
    outputs = {gamma: [] for gamma in gammas}

    def recorded(gamma):
        run = speculative(setup, gamma, recorders[gamma])
        return lambda prompt: outputs[gamma].append(run(prompt))
    runs = {gamma: recorded(gamma) for gamma in gammas}
    timings = time_methods(setup, {**runs, "autoregressive": autoregressive(setup)}, repeats, progress)
    rows = {}
    for gamma in gammas:
        rounds = len(recorders[gamma].forwards) - len(outputs[gamma])
        tokens = sum(len(ids) - 1 for ids, _ in outputs[gamma])
        rows[gamma] = SweepRow(timings.median(gamma), timings.median("autoregressive") / timings.median(gamma),
                               tokens / rounds, statistics.mean(rate for _, rate in outputs[gamma]))
    return rows


@torch.no_grad()
def alpha_along(setup: Setup, texts: list[list[int]]) -> list[list[float]]:
    """Σ min(p, q) at each generated position of ``texts`` (prompt + generated), per text."""
    values = []
    for prompt, text in zip(setup.prompts, texts):
        ids = torch.tensor([text], device=setup.device)
        p = setup.processor(setup.target(ids).logits[0, len(prompt) - 1 : -1])
        q = setup.processor(setup.drafter(ids).logits[0, len(prompt) - 1 : -1])
        values.append(torch.minimum(p, q).sum(-1).tolist())
    return values


def tokens_per_call_along(alphas: list[list[float]], gamma: int) -> float:
    """Tokens per target call predicted from the acceptance probability at each position.

    ``alphas[t][i]``: the probability that the draft for generated position ``i`` of text
    ``t`` is accepted. A round that starts at position ``i`` drafts ``k = min(γ, tokens
    left − 1)`` and accepts drafts independently up to the first rejection, emitting
    ``j + 1`` tokens after ``j`` acceptances. The expected rounds from each position are
    computed backwards; position 0 comes from the prefill. The formula's single α treats
    every position alike; along real text α varies, and this does not. Under greedy
    decoding each α is 0 or 1 and the count is exact.
    """
    tokens = rounds = 0.0
    for a in alphas:
        n = len(a)
        expected = [0.0] * (n + 1)  # expected rounds from position i to the end
        for i in range(n - 1, 0, -1):
            k = min(gamma, n - i - 1)
            reach, total = 1.0, 1.0
            for j in range(k):  # drafts i .. i+j-1 accepted, draft i+j rejected
                total += reach * (1 - a[i + j]) * expected[i + j + 1]
                reach *= a[i + j]
            expected[i] = total + reach * expected[i + k + 1]  # all k accepted: the bonus
        tokens += n - 1
        rounds += expected[1]
    return tokens / rounds


@torch.no_grad()
def step_ms(model, prompt: list[int], device: str, repeats: int = 30) -> float:
    """Median time of one cached single-token forward (a decode step)."""
    cache = DynamicCache()
    context = torch.tensor([prompt], device=device)
    model(context, cache=cache, use_cache=True)
    return cached_step_ms(lambda: model(context[:, -1:], cache=cache, use_cache=True), cache, device, repeats)


def cached_step_ms(step, cache: DynamicCache, device: str, repeats: int = 30) -> float:
    """Median milliseconds of ``step()``, which adds one position to ``cache``, cropped after each."""
    samples = []
    for _ in range(repeats):
        samples.append(timed(step, device))
        cache.crop(-1)
    return 1000 * statistics.median(samples)


def run_bench(setup: Setup, gammas: list[int], repeats: int, sweep_repeats: int, hf: bool,
              phases: Phases | None = None) -> Comparison:
    """The sweep over ``gammas`` picks the best γ; then all methods are compared at it.
    Each phase is timed with the load it ran under (``phases``: the command's, or its own)."""
    phases = phases or Phases("bench")
    with phases("γ sweep"), tqdm(total=(len(gammas) + 1) * sweep_repeats, desc="bench: γ sweep", unit="run",
                                 leave=False) as progress:
        speculative(setup, gammas[0])(setup.prompts[0])  # warm-up: first calls allocate
        rows = sweep(setup, gammas, sweep_repeats, progress)
    gamma = min(rows, key=lambda g: rows[g].seconds)
    runs = methods(setup, gamma, hf)
    cache_before = compile_cache_counts()
    with phases("first calls"):  # the first call of each method warms it up; a fast loop's also compiles
        first_call = {m: timed(lambda: run(setup.prompts[0]), setup.device)
                      for m, run in tqdm(runs.items(), desc="bench: first calls (warm-up, compiling)",
                                         unit="method", leave=False)}
    compile_cache = {k: v - cache_before[k] for k, v in compile_cache_counts().items()}
    with phases("methods"), tqdm(total=repeats * len(runs), desc=f"bench: methods at γ={gamma}", unit="run",
                                 leave=False) as progress:
        timings = time_methods(setup, runs, repeats, progress)
    with phases("analysis"):  # α along the texts, step costs, where the time goes
        comparison = analysis(setup, gamma, rows, timings)
        if setup.fast:
            comparison = replace(comparison, fast=fast_report(setup, timings, first_call, compile_cache,
                                                              setup.fast.gamma or gamma, comparison.alpha))
    return comparison


def analysis(setup: Setup, gamma: int, sweep_rows: dict[int, SweepRow], timings: Timings) -> Comparison:
    """The comparison at ``gamma`` and the theory beside the measurements."""
    breakdown, texts = time_breakdown(setup, gamma)
    alphas = alpha_along(setup, texts)
    alpha = statistics.mean(statistics.mean(a) for a in alphas)
    target_step = step_ms(setup.target, setup.prompts[0], setup.device)
    c = step_ms(setup.drafter, setup.prompts[0], setup.device) / target_step
    one_alpha = [[alpha] * len(a) for a in alphas]
    # The formula assumes every round may draft γ tokens; near the length limit fewer fit.
    sweep_rows = {g: replace(row, theory_tokens_per_target_call=theory_tokens_per_call(alpha, g),
                             length_limited_theory_tokens_per_target_call=tokens_per_call_along(one_alpha, g),
                             predicted_tokens_per_target_call=tokens_per_call_along(alphas, g),
                             theory_speedup=theory_speedup(alpha, g, c))
                  for g, row in sweep_rows.items()}
    best = sweep_rows[gamma]
    ours = timings.median(f"speculative γ={gamma}")
    hf_best = fastest_hf(timings)
    return Comparison(
        speedup_vs_autoregressive=timings.median("autoregressive") / ours,
        speedup_vs_hf_assisted=hf_best / ours if hf_best else None,
        acceptance_rate=best.acceptance_rate, alpha=alpha, cost_ratio_c=c,
        tokens_per_target_call=best.tokens_per_target_call,
        theory_tokens_per_target_call=best.theory_tokens_per_target_call,
        length_limited_theory_tokens_per_target_call=best.length_limited_theory_tokens_per_target_call,
        predicted_tokens_per_target_call=best.predicted_tokens_per_target_call,
        theory_speedup=best.theory_speedup, gamma=gamma, target_step_ms=target_step,
        verification_step_ratio=breakdown.verification_forward_ms / target_step, time_breakdown=breakdown,
        seconds={m: timings.median(m) for m in timings.seconds},
        tokens_per_second={m: len(setup.prompts) * setup.new_tokens / timings.median(m) for m in timings.seconds},
        sweep=sweep_rows)


def fastest_hf(timings: Timings) -> float | None:
    """The median seconds of HF assisted generation in its faster setting; None if not timed."""
    return min((timings.median(m) for m in timings.seconds if m.startswith("HF")), default=None)


def compile_cache_counts() -> dict[str, int]:
    """Graphs inductor has so far, in this process, found in its on-disk cache (``hit``)
    and compiled afresh (``miss``)."""
    from torch._dynamo.utils import counters

    return {"hit": counters["inductor"]["fxgraph_cache_hit"], "miss": counters["inductor"]["fxgraph_cache_miss"]}


def fast_report(setup: Setup, timings: Timings, first_call: dict, compile_cache: dict, gamma: int,
                alpha: float) -> FastResult:
    """Lesson 7's loops against the rest of the same run, and its decode step against the
    floor the memory bandwidth sets. Compile time is the fast methods' first calls less a
    timed call, per prompt: it never counts in tokens/s; ``compile_cache`` (graphs inductor
    found on disk, ``hit``, and compiled, ``miss``, during those calls) says whether its
    on-disk cache was warm, which decides that time. The theory of the fast loop's
    speedup over the fast baseline takes α from the run and c from the two models' fast
    steps, each timed here with the fast baseline on that model alone (``fast_step_ms``)."""
    spec, base = f"fast speculative γ={gamma}", "fast autoregressive"
    per_prompt = {m: timings.median(m) / len(setup.prompts) for m in (spec, base)}
    step = fast_step_ms(setup, setup.target)
    context = statistics.mean(len(p) for p in setup.prompts) + setup.new_tokens / 2
    bandwidth = roofline.memory_bandwidth(setup.device)
    drafter_step = fast_step_ms(setup, setup.drafter)
    c = drafter_step / step
    hf_best = fastest_hf(timings)
    return FastResult(
        gamma=gamma, compiled=setup.fast.compile, compile_cache=cache_state(compile_cache),
        graphs_from_cache=compile_cache["hit"], graphs_compiled=compile_cache["miss"],
        speedup_vs_autoregressive=timings.median("autoregressive") / timings.median(spec),
        speedup_vs_fast_autoregressive=timings.median(base) / timings.median(spec),
        speedup_vs_hf_assisted=hf_best / timings.median(spec) if hf_best else None,
        compile_seconds=sum(max(0.0, first_call[m] - per_prompt[m]) for m in (spec, base)),
        target_step_ms=step, floor_step_ms=roofline.floor_step_ms(setup.target, int(context), bandwidth),
        memory_bandwidth_gb_s=bandwidth / 1e9, drafter_step_ms=drafter_step, cost_ratio_c=c,
        theory_speedup_vs_fast_autoregressive=theory_speedup(alpha, gamma, c),
        theory_best_gamma=max(range(1, 17), key=lambda g: theory_speedup(alpha, g, c)))


def cache_state(counts: dict) -> str | None:
    """"warm" when every graph came from inductor's on-disk cache, "cold" when none did,
    "partly warm" between; None when nothing was compiled (eager steps)."""
    if not counts["hit"] + counts["miss"]:
        return None
    return "warm" if not counts["miss"] else "cold" if not counts["hit"] else "partly warm"


def fast_step_ms(setup: Setup, model) -> float:
    """Milliseconds per decoded token of the fast baseline on ``model``: the time of one call
    per prompt at ``new_tokens`` less the time at a quarter of them, over the tokens between.
    What a call pays once (the eager prefill, the prompt copied over, the output read back)
    cancels out, so the figure is the decode step alone, as its floor is. One untimed call
    first compiles ``model``'s step and sizes its cache for the longer calls."""
    def run(tokens: int) -> None:
        for prompt in setup.prompts:
            setup.fast.autoregressive_generate(prompt, model, max_gen_len=tokens,
                                               logits_processor=setup.processor, eos_tokens_id=NO_EOS,
                                               compile=setup.fast.compile)
    long, short = setup.new_tokens, setup.new_tokens // 4
    run(long)
    seconds = timed(lambda: run(long), setup.device) - timed(lambda: run(short), setup.device)
    return 1000 * seconds / (len(setup.prompts) * (long - short))
