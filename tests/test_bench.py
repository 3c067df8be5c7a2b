"""`grader bench` and `grader demo` run, and their numbers are consistent (speed itself is
measured by the benchmark, never asserted here)."""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from grader.bench import NARROW_MAX_NODES, eagle_rows, speedup
from tests.conftest import ROOT, run_grader


def test_theory_formulas():
    assert speedup.theory_tokens_per_call(0.0, 4) == 1.0
    assert speedup.theory_tokens_per_call(1.0, 4) == 5.0
    assert speedup.theory_tokens_per_call(0.5, 1) == pytest.approx(1.5)
    assert speedup.theory_speedup(0.5, 1, 0.5) == pytest.approx(1.0)


def test_tokens_per_call_along_the_text():
    """All accepted: rounds of γ + 1 tokens; none: one token a round; one α everywhere, on a
    long text: the formula; long easy and hard stretches: fewer than the formula says."""
    assert speedup.tokens_per_call_along([[1.0] * 129], 4) == pytest.approx(128 / 26)  # 25 rounds of 5, one of 3
    assert speedup.tokens_per_call_along([[0.0] * 129], 4) == 1.0
    assert speedup.tokens_per_call_along([[0.85] * 10001], 4) == pytest.approx(
        speedup.theory_tokens_per_call(0.85, 4), rel=1e-3)
    stretches = [1.0] * 5000 + [0.7] * 5001
    assert speedup.tokens_per_call_along([stretches], 4) < 0.97 * speedup.theory_tokens_per_call(0.85, 4)


def test_bench_runs_and_reports_consistent_numbers(tmp_path):
    plot = tmp_path / "sweep.png"
    result = run_grader("bench", "--layers", "3", "--hidden", "64", "--prompts", "2",
                        "--new-tokens", "16", "--gammas", "1-3", "--quick", "--json", "--fast", "--no-compile",
                        "--plot", str(plot), env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    for key in ("speedup_vs_autoregressive", "speedup_vs_hf_assisted", "acceptance_rate",
                "tokens_per_target_call", "theory_tokens_per_target_call", "gamma", "device",
                "processor", "target", "drafter"):
        assert key in report, key
    gamma = report["gamma"]
    assert gamma in (1, 2, 3)
    assert 0 <= report["acceptance_rate"] <= 1 and 0 <= report["alpha"] <= 1
    assert 1 <= report["tokens_per_target_call"] <= gamma + 1
    assert report["theory_tokens_per_target_call"] == pytest.approx(
        speedup.theory_tokens_per_call(report["alpha"], gamma))
    assert report["speedup_vs_autoregressive"] > 0 and report["speedup_vs_hf_assisted"] > 0
    for g, row in report["sweep"].items():  # each round emits its accepted drafts plus one
        assert row["tokens_per_target_call"] == pytest.approx(1 + row["acceptance_rate"] * int(g), rel=0.35)
        # greedy: the agreement at each position decides every round, so the count is exact
        assert row["tokens_per_target_call"] == pytest.approx(row["predicted_tokens_per_target_call"], rel=1e-9)
        # rounds cut short by the length limit emit fewer tokens than the formula's
        assert 1 <= row["length_limited_theory_tokens_per_target_call"] < row["theory_tokens_per_target_call"]
    parts = report["time_breakdown"]
    assert parts["target forwards"] + parts["drafter forwards"] <= parts["total"]
    assert parts["target_calls"] > report["prompts"] and parts["drafter_calls"] > 0  # a prefill and rounds each
    assert report["verification_step_ratio"] > 0 and report["target_step_ms"] > 0
    assert plot.stat().st_size > 1000
    fast = report["fast"]  # lesson 7's rows, timed in the same run (eager here: no compile time)
    assert fast["gamma"] == gamma and fast["compiled"] is False and fast["compile_cache"] is None
    for key in ("speedup_vs_autoregressive", "speedup_vs_fast_autoregressive", "speedup_vs_hf_assisted",
                "target_step_ms", "floor_step_ms", "memory_bandwidth_gb_s", "drafter_step_ms", "cost_ratio_c",
                "theory_speedup_vs_fast_autoregressive"):
        assert fast[key] > 0, key
    assert fast["theory_speedup_vs_fast_autoregressive"] == pytest.approx(
        speedup.theory_speedup(report["alpha"], gamma, fast["cost_ratio_c"]))
    assert 1 <= fast["theory_best_gamma"] <= 16 and "the theory's best γ is" in result.stdout
    assert fast["compile_seconds"] >= 0 and fast["floor_step_ms"] < fast["target_step_ms"]
    assert {"fast autoregressive", f"fast speculative γ={gamma}"} <= set(report["seconds"])
    assert report["torch_threads"] == 1  # the default: one thread, chosen on purpose
    load_fields = {"seconds", "cores", "other_cores", "loadavg_before", "loadavg_after", "competed"}
    assert set(report["load"]) >= load_fields
    phases = report["phases"]  # each timed with its load, printed as it ended and in the report
    assert list(phases) == ["setup", "γ sweep", "first calls", "methods", "analysis"]
    for name, phase in phases.items():
        assert set(phase) >= load_fields and phase["seconds"] > 0, name
        assert f"bench: {name} took " in result.stderr and f"\n{name} " in result.stdout
    assert sum(p["seconds"] for p in phases.values()) <= report["load"]["seconds"]
    assert report["startup_seconds"] > 0 and "bench: start-up (Python, torch, transformers) took" in result.stderr
    competed = report["load"]["competed"] or any(p["competed"] for p in phases.values())
    assert (report["warning"] is not None) == competed == ("WARNING: other processes competed" in result.stdout)
    assert "(1 torch threads)" in result.stdout and "all phases" in result.stdout


def meter(seconds: float, other_cores: float | None, loadavg: float = 0.3):
    """A LoadMeter as if it had timed ``seconds`` while other work used ``other_cores``."""
    from grader.bench.timing import LoadMeter

    done = LoadMeter()
    done.seconds, done.other_cores, done.loadavg_before, done.loadavg_after = seconds, other_cores, loadavg, loadavg
    return done


def test_phases_warn_naming_the_phases_other_work_slowed(capsys):
    from grader.bench.timing import COMPETING_CORES, Phases

    with Phases("bench") as phases:
        with phases("setup"):
            pass
    assert "bench: setup took " in capsys.readouterr().err  # printed as the phase ends
    assert set(phases.report()["setup"]) == {"seconds", "cores", "other_cores", "loadavg_before",
                                             "loadavg_after", "competed"}
    phases.whole = meter(20.0, 0.1)
    phases.meters = {"γ sweep": meter(10.0, 0.1), "methods": meter(10.0, 0.1)}
    assert phases.warning() is None and "WARNING" not in phases.table()
    phases.meters["methods"] = meter(10.0, COMPETING_CORES + 0.1)
    assert phases.warning().startswith("WARNING: other processes competed for the CPU during methods;")
    assert "(competed)" in phases.table() and phases.report()["methods"]["competed"] is True
    phases.meters["methods"] = meter(10.0, COMPETING_CORES - 0.1)
    phases.whole = meter(20.0, COMPETING_CORES)  # spread over the whole run, no phase above the mark
    assert "while this was timed" in phases.warning()
    phases.whole = meter(20.0, None, loadavg=1.5)  # no /proc/stat: the load average before decides
    assert phases.warning() is not None and phases.report()["γ sweep"]["competed"] is False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="a running child's CPU is read from Linux's /proc")
def test_the_cpu_of_this_process_children_is_its_own_work_not_other_work():
    """A child process that spins (as torch.compile's compile workers do) counts as this
    command's own CPU, whether it still runs or has ended, so it raises no warning of other work."""
    from grader.bench.timing import own_cpu_seconds

    spin = "import time\nwhile time.process_time() < 1.0: pass\nprint('spun', flush=True)\ninput()"
    before, mine = own_cpu_seconds(), time.process_time()
    child = subprocess.Popen([sys.executable, "-c", spin], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "spun\n"  # its second of CPU spent, and still running
    running = own_cpu_seconds() - before
    child.communicate("\n", timeout=60)
    ended = own_cpu_seconds() - before
    assert time.process_time() - mine < 0.5 < 0.9 <= running <= ended, (running, ended)  # 0.9: clock ticks


def test_sweep_times_every_gamma_and_autoregressive_interleaved():
    """Repetition by repetition, each run of every γ and of autoregressive decoding, the
    order rotated, so that a burst of other work falls on all of them alike."""
    calls = []

    def generate(prompt, *models, gamma=None, **kwargs):
        calls.append(gamma or "autoregressive")
        target = models[-1]
        for _ in range(3 if gamma else 1):  # the prefill and two rounds
            target(torch.zeros((1, 1), dtype=torch.long))
        return [0] * 5, 0.5

    setup = speedup.Setup(lambda ids: None, None, [[1, 2]], 5, None, generate, generate, "cpu")
    with speedup.tqdm(total=6, disable=True) as progress:
        rows = speedup.sweep(setup, [1, 2], 2, progress)
    assert calls == [1, 2, "autoregressive", 2, "autoregressive", 1]
    assert rows[1].tokens_per_target_call == 2.0 and rows[2].acceptance_rate == 0.5
    assert rows[2].speedup_vs_autoregressive > 0


def test_compile_cache_state():
    assert speedup.cache_state({"hit": 0, "miss": 0}) is None  # eager: nothing compiled
    assert speedup.cache_state({"hit": 4, "miss": 0}) == "warm"
    assert speedup.cache_state({"hit": 0, "miss": 4}) == "cold"
    assert speedup.cache_state({"hit": 3, "miss": 1}) == "partly warm"


@pytest.mark.parametrize("loop, says", [
    ("fast-suffix", ("loop: lesson 12's fast_suffix_speculative_generate", "tokens per target forward",
                     f"as a tree of at most {NARROW_MAX_NODES} nodes",
                     "fast autoregressive ", " tokens/s, fast suffix ")),
    ("speculative", ("loop: lesson 4's speculative_generate", "acceptance rate", "autoregressive ",
                     " tokens/s, speculative ")),
])
def test_demo_runs_on_the_shipped_pair(loop, says):
    """The default loop (lesson 12's fast one, eager here: compiling is timed apart and cached)
    and lesson 4's, each named, against its own baseline, greedy output checked."""
    result = run_grader("demo", "import os\n", "--max-gen-len", "24", "--repeats", "1", "--loop", loop,
                        "--no-compile", env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "greedy output identical to the target's alone: yes" in result.stdout
    assert all(said in result.stdout for said in says), result.stdout[-2000:]


def test_demo_under_load_is_quick_and_says_other_work_competed():
    """One busy process on the machine: the demo still takes one thread, finishes within a
    minute, and prints the warning beside its numbers (its steps eager: a first compile alone
    takes about a minute on a busy 2-core CPU, once, its graphs then read from inductor's cache)."""
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        start = time.monotonic()
        result = run_grader("demo", "--max-gen-len", "48", "--repeats", "3", "--no-compile",
                            env={"HF_HUB_OFFLINE": "1"}, timeout=300)
        elapsed = time.monotonic() - start
    finally:
        busy.kill()
        busy.wait()
    assert result.returncode == 0, result.stderr[-3000:]
    assert elapsed < 60, f"{elapsed:.0f} s"
    assert "median of 3 interleaved runs each, range" in result.stdout
    assert "1 thread, " in result.stdout
    assert "WARNING: other processes competed for the CPU" in result.stdout


def test_decode_step_bytes_count_weights_once_and_the_cache():
    from grader.bench import roofline
    from grader.models import synthetic

    target, _ = synthetic.synthetic_pair(layers=2, hidden=64)
    config = target.config
    weights = sum(p.numel() for p in target.parameters()) * 4
    embedding_rows_unread = (config.vocab_size - 1) * config.hidden_size * 4
    kv = 2 * config.num_hidden_layers * config.num_key_value_heads * (64 // config.num_attention_heads) * 10 * 4
    assert roofline.decode_step_bytes(target, 10) == weights - embedding_rows_unread + kv
    assert roofline.memory_bandwidth("cpu", repeats=1) > 1e8  # bytes per second, any machine


def test_bench_batch_reports_both_methods_at_each_size_and_the_crossover():
    """One prompt, so batch 2 cycles through it; the main bench at its smallest, no plot asked
    for, so none written; its phases show progress bars on stderr; --quick leaves the fast
    loops out unless asked for, and says how to ask."""
    started = time.time()
    result = run_grader("bench", "--layers", "3", "--hidden", "64", "--prompts", "1",
                        "--new-tokens", "8", "--gammas", "2", "--quick", "--no-hf",
                        "--batch", "2,1", "--json", env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert "γ sweep plot" not in result.stdout
    assert not any(p.stat().st_mtime >= started for p in ROOT.glob("*.png"))
    assert "bench: γ sweep" in result.stderr and "bench: batches" in result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["fast"] is None and "add --fast to time them too" in result.stdout
    assert list(report["phases"])[-1] == "batches" and "bench: batches took " in result.stderr
    rows = report["batch"]
    assert [row["batch_size"] for row in rows] == [1, 2]  # sorted
    for row in rows:
        for key in ("autoregressive_tokens_per_s", "speculative_tokens_per_s", "speedup",
                    "target_step_ms", "verification_forward_ms", "verification_step_ratio"):
            assert row[key] > 0, key
        assert 0 <= row["acceptance_rate"] <= 1
        assert row["speedup"] == pytest.approx(
            row["speculative_tokens_per_s"] / row["autoregressive_tokens_per_s"])
    assert rows[0]["single_loop_tokens_per_s"] > 0 and "single_loop_tokens_per_s" not in rows[1]
    assert report["crossover_batch"] in (None, 1, 2)
    assert "batches (lesson 8)" in result.stdout and "crossover: " in result.stdout
    assert "B = 1: the batched loop at" in result.stdout


def test_bench_eagle_times_the_feature_head_beside_the_drafter_with_the_theory_for_chains():
    result = run_grader("bench", "--pair", "shipped", "--prompts", "1", "--new-tokens", "8", "--gammas", "2",
                        "--quick", "--no-hf", "--eagle", "--json", env={"HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    eagle = report["eagle"]
    assert 0 < eagle["alpha"] <= 1 and eagle["cost_ratio_c"] > 0 and list(report["phases"])[-1] == "feature head"
    rows = {row["method"]: row for row in eagle["rows"]}
    assert list(rows) == ["drafter chain γ=2", "head chain γ=3", "head chain γ=4", "head chain γ=5",
                          "head tree (3, 2, 4)", "head tree (5, 4, 16)"]
    for name, row in rows.items():
        assert row["speedup_vs_autoregressive"] > 0 and 1 <= row["tokens_per_target_call"] <= 8, name
        if "tree" in name:
            assert row["theory_speedup"] is None and row["theory_tokens_per_target_call"] is None
    for gamma in (3, 4, 5):
        assert rows[f"head chain γ={gamma}"]["theory_tokens_per_target_call"] == pytest.approx(
            speedup.theory_tokens_per_call(eagle["alpha"], gamma))
    assert rows["drafter chain γ=2"]["theory_speedup"] == pytest.approx(
        speedup.theory_speedup(report["alpha"], 2, report["cost_ratio_c"]))
    assert "lesson 11's feature head: α" in result.stdout


def test_bench_suffix_rows_stand_beside_the_others_with_what_the_index_predicted():
    """--suffix's rows in one interleaved run (here 1 prompt x 8 tokens, 1 repetition, a corpus of
    other held-out text): the suffix loops' tokens per target call measured and as their trees'
    scores predicted; the module's speculation_tree is its own again afterwards."""
    import numpy as np

    from grader.bench import suffix_rows
    from grader.bench.results import as_json
    from grader.models import load_pair
    from grader.models.corpus import held_out_prompts
    from solutions import eagle, suffix
    from solutions.autoregressive import autoregressive_generate
    from solutions.sampling import GreedyProcessor
    from solutions.speculative import speculative_generate

    target, drafter, tokenizer = load_pair("cpu")
    prompts = held_out_prompts(tokenizer, 4)
    corpus = suffix.CorpusIndex(np.array([t for p in prompts[1:] for t in p], dtype=np.int32))
    setup = speedup.Setup(target, drafter, prompts[:1], 8, GreedyProcessor(), autoregressive_generate,
                          speculative_generate, "cpu")
    grown = suffix.speculation_tree
    report = suffix_rows.run_suffix(setup, suffix, eagle, 2, hf=False, repeats=1, corpus=corpus)
    assert suffix.speculation_tree is grown and report.corpus_tokens == len(corpus)
    rows = {row.method: row for row in report.rows}
    adaptive = [suffix_rows.adaptive_name(t) for t in suffix_rows.ADAPTIVE_THRESHOLDS]
    assert list(rows) == ["autoregressive", "drafter chain γ=2", *adaptive, f"head chain γ={suffix_rows.HEAD_GAMMA}",
                          suffix_rows.TEXT_ONLY, suffix_rows.WITH_CORPUS, suffix_rows.NARROW]
    assert rows["autoregressive"].speedup_vs_autoregressive == 1 and set(report.adaptive_vs_fixed) == set(adaptive)
    for name, row in rows.items():
        assert row.tokens_per_second > 0 and row.speedup_vs_fast_autoregressive is None, name
        counted = name in (suffix_rows.TEXT_ONLY, suffix_rows.WITH_CORPUS, suffix_rows.NARROW)
        assert (row.tokens_per_target_call is not None) == counted == (row.predicted_tokens_per_target_call is not None)
        if counted:  # 8 tokens: the prefill's, then rounds of at most 8
            assert 1 < row.tokens_per_target_call <= 4.5 and row.predicted_tokens_per_target_call >= 1, name
    assert set(as_json(report)) == {"rows", "adaptive_vs_fixed", "corpus_tokens"}


@pytest.mark.parametrize("flag", ["--eagle", "--suffix"])
def test_bench_eagle_and_suffix_ask_for_the_shipped_pair(flag, capsys):
    with pytest.raises(SystemExit) as usage:
        from grader import cli
        cli.main(["bench", flag])
    assert usage.value.code == 2 and f"{flag} needs --pair shipped" in capsys.readouterr().err


def test_head_alpha_along_reads_for_each_generated_token_the_pairs_before_it():
    """Token n of a text is drafted by the head's last row after the pairs (f_j, x_{j+1}) of
    the target's features of the n tokens before it; α averages Σ min(p, q) over them."""
    from grader.checks import eagle_generate
    from solutions import eagle
    from solutions.sampling import MultinomialProcessor

    target, head = eagle_generate.models()
    processor, prompt = MultinomialProcessor(temperature=1.0), [3, 5, 4, 2]
    text = prompt + [1, 0, 5, 2, 3]
    setup = speedup.Setup(target, None, [prompt], len(text) - len(prompt), processor, None, None, "cpu")
    ids, values = torch.tensor([text]), []
    with torch.no_grad():
        for n in range(len(prompt), len(text)):
            out = target(ids[:, :n], output_hidden_states=True)
            _, q = eagle.feature_draft_step(head, out.hidden_states[-1][:, :-1], ids[:, 1:n], None)
            values.append(torch.minimum(processor(out.logits[0, -1]), processor(q[0, -1])).sum().item())
    assert eagle_rows.head_alpha_along(setup, eagle, head, [text]) == pytest.approx(sum(values) / len(values))


def bench_options(*argv: str):
    from grader import cli
    from grader.bench.command import BenchOptions

    return BenchOptions.parsed(cli.build_parser().parse_args(["bench", *argv]))


def test_an_explicit_size_wins_over_quick():
    """--quick sets the sizes not given; --repeats, --prompts, --new-tokens and --fast given win."""
    from grader.bench import NEW_TOKENS, PROMPTS, QUICK_NEW_TOKENS, QUICK_PROMPTS
    from grader.bench.command import QUICK_REPEATS, REPEATS, Sizes

    assert bench_options().sizes == Sizes(PROMPTS, NEW_TOKENS, REPEATS, 2, True)
    assert bench_options("--quick").sizes == Sizes(QUICK_PROMPTS, QUICK_NEW_TOKENS, QUICK_REPEATS, 1, False)
    assert bench_options("--quick", "--repeats", "7", "--prompts", "3", "--fast").sizes == Sizes(
        3, QUICK_NEW_TOKENS, 7, 1, True)
    assert bench_options("--gammas", "2-4").gammas == [2, 3, 4] and bench_options("--gammas", "4,2").gammas == [4, 2]


@pytest.mark.parametrize("flag, value, expected", [
    ("--gammas", "0-3", "expected γ values of at least 1"), ("--gammas", "3-1", "expected γ values of at least 1"),
    ("--gammas", "a,b", "expected γ values of at least 1"), ("--repeats", "0", "expected a whole number of at least 1"),
    ("--prompts", "2.5", "expected a whole number of at least 1"), ("--threads", "-1", "expected a whole number"),
])
def test_a_bad_bench_value_names_its_flag_and_what_was_expected(flag, value, expected, capsys):
    with pytest.raises(SystemExit) as usage:
        bench_options(f"{flag}={value}")
    err = capsys.readouterr().err
    assert usage.value.code == 2 and f"argument {flag}: {expected}" in err and repr(value) in err


@pytest.mark.parametrize("value", ["0,2", "1,x", "", "-4"])
def test_bench_batch_rejects_a_bad_list_as_a_usage_error(value):
    result = run_grader("bench", f"--batch={value}")
    assert result.returncode == 2
    assert "argument --batch: expected a comma list of batch sizes" in result.stderr


def test_batched_autoregressive_decoding_equals_each_prompt_decoded_alone():
    """Prompts of different lengths, left-padded in one batch: greedy rows are the tokens
    `autoregressive_generate` gives each prompt alone (the bench's baseline is honest)."""
    from grader.bench.batches import batched_autoregressive_generate
    from grader.models.synthetic import synthetic_pair
    from solutions.autoregressive import autoregressive_generate
    from solutions.sampling import GreedyProcessor

    target, _ = synthetic_pair(layers=3, hidden=64)
    generator = torch.Generator().manual_seed(1)
    prompts = [torch.randint(3, 4096, (n,), generator=generator).tolist() for n in (5, 13, 1, 9)]
    batched = batched_autoregressive_generate(prompts, target, 16, GreedyProcessor())
    assert batched == [autoregressive_generate(p, target, max_gen_len=16, eos_tokens_id=speedup.NO_EOS,
                                               use_cache=True) for p in prompts]


def test_the_fast_step_profile_times_the_step_against_its_floor():
    """scripts/profile_speculative.py --fast-steps, as it runs on a GPU but eager on the CPU
    with a two-layer pair: the step's time, its floor and the profiler's table."""
    result = subprocess.run([sys.executable, "scripts/profile_speculative.py", "--layers", "2", "--hidden", "64",
                             "--fast-steps", "4", "--eager", "--rows", "5"], capture_output=True, text=True,
                            timeout=300, cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("eager decode step on cpu: "))
    step, floor, ratio = (float(x) for x in re.findall(r"([\d.]+)(?: ms|x\))", line))
    assert 0 < floor < step and ratio == pytest.approx(step / floor, rel=0.01), line
    assert "aten::mm" in result.stdout
