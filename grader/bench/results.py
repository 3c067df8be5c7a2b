"""What `grader bench` measures, as types: the fields its report prints, its plot draws and
its JSON holds (``BenchResult.to_json``: the keys and their order that docs/data/*.json and
scripts/gpu_run.sh's lines were written with).

Every figure is frozen once measured. Seconds are medians over interleaved repetitions of
the time for all prompts; a speedup is a ratio of two such medians.
"""
from dataclasses import dataclass, field, fields, is_dataclass


def key(name: str):
    """A field written under another JSON key (one with spaces, as the report prints it)."""
    return field(metadata={"key": name})


def optional(default=None):
    """A field left out of the JSON while it is None (a figure only some runs measure)."""
    return field(default=default, metadata={"optional": True})


def as_json(value):
    """Dataclasses as dicts in field order, under each field's JSON key, leaving out the
    optional fields that are None; lists, tuples and dicts within, likewise."""
    if is_dataclass(value):
        return {f.metadata.get("key", f.name): as_json(getattr(value, f.name)) for f in fields(value)
                if not (f.metadata.get("optional") and getattr(value, f.name) is None)}
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    return value


@dataclass(frozen=True)
class SweepRow:
    """One γ of the sweep: what the sweep measured, then the theory beside it, which needs
    the α and c measured after the sweep (None until then)."""
    seconds: float
    speedup_vs_autoregressive: float
    tokens_per_target_call: float  # tokens emitted per round (the prefill is no round)
    acceptance_rate: float  # the mean of speculative_generate's own rate, over prompts and repetitions
    theory_tokens_per_target_call: float | None = None  # (1 − α^{γ+1}) / (1 − α)
    length_limited_theory_tokens_per_target_call: float | None = None  # one α, rounds cut by the length limit
    predicted_tokens_per_target_call: float | None = None  # the α of each position, rounds cut
    theory_speedup: float | None = None  # theory tokens per call / (γc + 1)


@dataclass(frozen=True)
class TimeBreakdown:
    """Where one speculative run over all prompts spends its seconds."""
    total: float
    target_forwards: float = key("target forwards")  # the prefills and one verification per round
    drafter_forwards: float = key("drafter forwards")  # one per draft
    target_calls: int
    drafter_calls: int
    verification_forward_ms: float  # the median target forward after each prompt's prefill
    loop: float = key("loop (sampling, verification, bookkeeping)")  # the rest

    def parts(self) -> dict[str, float]:
        """The three parts that add up to ``total``, under the names the report prints."""
        return {"target forwards": self.target_forwards, "drafter forwards": self.drafter_forwards,
                "loop (sampling, verification, bookkeeping)": self.loop}


@dataclass(frozen=True)
class FastResult:
    """Lesson 7's loops, timed in the same repetitions as the rest, at ``gamma``."""
    gamma: int
    compiled: bool  # False: the same loop, eager (--no-compile)
    compile_cache: str | None  # "warm", "cold", "partly warm"; None: nothing compiled
    graphs_from_cache: int  # graphs inductor found in its on-disk cache
    graphs_compiled: int  # and compiled afresh
    speedup_vs_autoregressive: float
    speedup_vs_fast_autoregressive: float
    speedup_vs_hf_assisted: float | None  # None: HF not timed (--no-hf)
    compile_seconds: float  # the first calls less a timed call: never in tokens/s
    target_step_ms: float  # one decoded token of the fast baseline (its step and sampling), per-call costs apart
    floor_step_ms: float  # the bytes a step reads over the measured memory bandwidth
    memory_bandwidth_gb_s: float
    drafter_step_ms: float
    cost_ratio_c: float  # drafter_step_ms / target_step_ms
    theory_speedup_vs_fast_autoregressive: float
    theory_best_gamma: int  # of 1..16, by the theory at this α and c


@dataclass(frozen=True)
class Comparison:
    """What ``speedup.run_bench`` measures: the γ sweep, and every method timed at the γ
    the sweep found fastest (``gamma``), with the theory beside the measurements. The
    fields from ``acceptance_rate`` to ``theory_speedup`` repeat ``sweep[gamma]``'s."""
    speedup_vs_autoregressive: float
    speedup_vs_hf_assisted: float | None  # against HF in its faster setting; None: HF not timed
    acceptance_rate: float
    alpha: float  # Σ min(p, q), averaged along the generated texts
    cost_ratio_c: float  # a drafter decode step over a target decode step
    tokens_per_target_call: float
    theory_tokens_per_target_call: float
    length_limited_theory_tokens_per_target_call: float
    predicted_tokens_per_target_call: float
    theory_speedup: float
    gamma: int
    target_step_ms: float  # one cached single-token forward of the target
    verification_step_ratio: float  # a verification forward (γ + 1 tokens) over target_step_ms
    time_breakdown: TimeBreakdown
    seconds: dict[str, float]  # method name -> median seconds for all prompts
    tokens_per_second: dict[str, float]  # method name -> tokens over those seconds
    sweep: dict[int, SweepRow]  # γ -> its row
    fast: FastResult | None = None  # None: lesson 7's loops not timed


@dataclass(frozen=True)
class ChainRow:
    """A chain of as many drafts as a tree's nodes, run by the tree loop."""
    gamma: int
    tokens_per_target_call: float
    mean_accepted: float  # accepted nodes per round
    speedup_vs_autoregressive: float


@dataclass(frozen=True)
class TreeRow:
    """One tree shape (``branching``, ``nodes`` drafted nodes a round) beside its chain."""
    branching: tuple[int, ...]
    nodes: int
    tokens_per_target_call: float
    mean_accepted: float
    speedup_vs_autoregressive: float
    chain: ChainRow


@dataclass(frozen=True)
class BatchRow:
    """Batch size ``batch_size``: batched speculative against batched autoregressive decoding."""
    batch_size: int
    gamma: int
    autoregressive_tokens_per_s: float  # over the whole batch
    speculative_tokens_per_s: float
    speedup: float
    acceptance_rate: float
    target_step_ms: float  # a target forward on [B, 1] after the prompts
    verification_forward_ms: float  # on [B, γ + 1]
    verification_step_ratio: float
    single_loop_tokens_per_s: float | None = optional()  # B = 1 only: lesson 4's loop


@dataclass(frozen=True)
class BatchReport:
    batch: list[BatchRow]  # by batch size, ascending
    crossover_batch: int | None  # the smallest B whose speedup is at most 1; None: none


@dataclass(frozen=True)
class EagleRow:
    """One loop of ``--eagle``; the theory only for chains (None for a tree)."""
    method: str
    speedup_vs_autoregressive: float
    tokens_per_target_call: float  # the prefill included
    theory_tokens_per_target_call: float | None
    theory_speedup: float | None


@dataclass(frozen=True)
class EagleReport:
    alpha: float  # the feature head's, one step ahead along generated text
    cost_ratio_c: float  # a head step over a target decode step
    rows: list[EagleRow]


@dataclass(frozen=True)
class SuffixRow:
    """One method of ``--suffix``; tokens per call only for the suffix loops (None otherwise)."""
    method: str
    tokens_per_second: float
    speedup_vs_autoregressive: float
    tokens_per_target_call: float | None  # the prefill included
    predicted_tokens_per_target_call: float | None  # as the index's tree scores predicted
    speedup_vs_fast_autoregressive: float | None  # the fast loops' rows only


@dataclass(frozen=True)
class SuffixReport:
    rows: list[SuffixRow]
    adaptive_vs_fixed: dict[str, float]  # each adaptive row's speed over the drafter chain at the best fixed γ
    corpus_tokens: int  # the corpus index's length


@dataclass(frozen=True)
class Conditions:
    """What was timed, on what, and under which load."""
    device: str
    processor: str  # the logits processor's repr
    target: str  # the models' names
    drafter: str
    prompts: int
    new_tokens: int  # per prompt
    torch_threads: int
    quick: bool
    startup_seconds: float  # Python, torch and transformers, before the bench began
    phases: dict[str, dict]  # phase name -> its load (``timing.LoadMeter.report``)
    load: dict  # the whole bench's
    warning: str | None  # when other work competed for the CPU
    device_name: str | None = optional()  # the GPU's name on CUDA
    commit: str | None = optional()  # the course's git commit measured ("+ changes": with uncommitted ones)


@dataclass(frozen=True)
class BenchResult:
    """All that one `grader bench` prints and writes."""
    comparison: Comparison
    conditions: Conditions
    trees: list[TreeRow] | None = None  # with --trees
    batches: BatchReport | None = None  # with --batch
    eagle: EagleReport | None = None  # with --eagle
    suffix: SuffixReport | None = None  # with --suffix

    def to_json(self) -> dict:
        """One JSON object: the comparison's keys, then ``trees``, ``batch`` and
        ``crossover_batch``, ``eagle``, ``suffix`` when timed, then the conditions'."""
        found = as_json(self.comparison)
        if self.trees is not None:
            found["trees"] = as_json(self.trees)
        if self.batches is not None:
            found.update(as_json(self.batches))
        if self.eagle is not None:
            found["eagle"] = as_json(self.eagle)
        if self.suffix is not None:
            found["suffix"] = as_json(self.suffix)
        return found | as_json(self.conditions)
