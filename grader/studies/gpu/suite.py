"""`scripts/gpu_run.sh`: the GPU measurements of docs/benchmarks.md, in stages that fit one
short lease of one GPU: two parts of about 6 minutes each (``--part 1``, ``--part 2``),
compiling included, each under the 10 minutes one command may run on a lent machine.

Each stage runs in its own process under its own time budget, then prints one JSON line
and writes it to ``RESULTS/<stage>.json`` the moment it ends, so a stage that runs out of
time (its line says ``"status": "timed_out"``) never loses the stages before it. Every line
carries the device, torch, transformers and the commit; its ``result`` is the JSON that
``grader bench`` (or pytest's summary) printed, and its ``sizes`` the prompts, tokens and
repetitions it ran. The stages:

- ``gpu_tests``: ``pytest tests/test_gpu.py``;
- ``lessons_4_7_greedy`` and ``lessons_4_7_sampling``: the eager loop (lesson 4) and the
  fast loops (lesson 7: static caches, CUDA graphs, the decode step against its memory
  floor) on the 1.6B synthetic bfloat16 pair, greedy and T = 1;
- ``lesson_8_batches``: the batch curve and its crossover (T = 1);
- ``lesson_9_trees``: token trees against chains of as many drafts;
- ``lesson_11_eagle``: the shipped feature head's chains and trees against the shipped token
  drafter (``--pair shipped --eagle``: the head is trained for the shipped target only).

Part 1 is the first three stages, part 2 the last three.

``--dry-run`` runs every stage on the CPU with two-layer models and a handful of tokens,
in about a minute: the test suite runs it. Without ``--part`` every stage runs, one after
the other (a machine with no limit on a command).
"""
import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
COMMAND_LIMIT_S = 600  # what one command may run on a lent machine; a part's budgets leave 30 s of it


@dataclass(frozen=True)
class Sizes:
    """What one bench stage runs: the pair, and prompts x new tokens per timed run."""
    device: str
    dtype: str
    layers: int
    hidden: int
    prompts: int
    new_tokens: int
    gammas: str  # the eager γ sweep
    fast_gamma: int
    batch: str
    repetitions: str = "--quick: 2 timed repetitions, 1 per γ of the sweep"
    compile: bool = True


GPU = Sizes("cuda", "bfloat16", layers=24, hidden=2048, prompts=2, new_tokens=64, gammas="3,5",
            fast_gamma=5, batch="1,2,4,8,16,32")
DRY = Sizes("cpu", "float32", layers=2, hidden=64, prompts=1, new_tokens=8, gammas="2", fast_gamma=2,
            batch="1,2", compile=False)


@dataclass(frozen=True)
class Stage:
    name: str
    budget_s: float
    bench: tuple[str, ...] | None  # grader bench's extra arguments; None: the GPU tests
    pair: str = "synthetic"  # grader bench's --pair: "synthetic" (of the sizes' shape) or "shipped"
    part: int = 1  # which of the two commands runs it (--part)


# Budgets: each stage's time on a fresh H200, nothing compiled yet, with a margin of 15 to 30%.
# Commit 1b13d26's run took 77, 84, 94, 109, 100 and 41 s; ff17987's, on another H200, ran
# past 85, 95 and 102 s in the first three (their logs: about 100, 111 and 108 s, the fast
# loops' first calls compiling for 53 s where a warm compile cache takes 17 s).
STAGES = (
    Stage("gpu_tests", 115, None),
    Stage("lessons_4_7_greedy", 130, ("--fast",)),
    Stage("lessons_4_7_sampling", 130, ("--sampling", "--fast")),
    Stage("lesson_8_batches", 140, ("--sampling", "--no-fast", "--batch"), part=2),
    Stage("lesson_9_trees", 130, ("--no-fast", "--trees"), part=2),
    Stage("lesson_11_eagle", 55, ("--no-fast", "--eagle"), pair="shipped", part=2),
)


def bench_command(stage: Stage, sizes: Sizes, results: Path) -> list[str]:
    shape = ["--layers", str(sizes.layers), "--hidden", str(sizes.hidden)] if stage.pair == "synthetic" else []
    command = [sys.executable, "-m", "grader", "bench", "--device", sizes.device, "--dtype", sizes.dtype,
               "--pair", stage.pair, *shape,
               "--prompts", str(sizes.prompts), "--new-tokens", str(sizes.new_tokens), "--gammas", sizes.gammas,
               "--fast-gamma", str(sizes.fast_gamma), "--quick", "--no-hf", "--json",
               "--plot", str(results / f"{stage.name}.png"), *stage.bench]
    if "--batch" in stage.bench:
        command.append(sizes.batch)
    if not sizes.compile:
        command.append("--no-compile")
    return command


def command_of(stage: Stage, sizes: Sizes, results: Path) -> list[str]:
    if stage.bench is None:
        return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_gpu.py"]
    return bench_command(stage, sizes, results)


def environment(commit: str | None) -> dict:
    """Device, library versions and commit (``commit``, else git's HEAD): in every stage's line."""
    import torch
    import transformers

    from solutions.fast import HOST_READ_EVERY

    cuda = torch.cuda.is_available()
    try:
        commit = commit or subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                          text=True, timeout=10).stdout.strip() or "unknown"
    except OSError:
        commit = "unknown"
    return {"device": torch.cuda.get_device_name() if cuda else f"cpu ({platform.processor() or platform.machine()})",
            "torch": torch.__version__, "transformers": transformers.__version__, "commit": commit,
            "host_read_every": HOST_READ_EVERY}


def run_stage(stage: Stage, sizes: Sizes, results: Path, budget_s: float) -> dict:
    """Run one stage in its own process group; killed at ``budget_s``. Its output goes to
    ``RESULTS/<stage>.log``."""
    command = command_of(stage, sizes, results)
    log = results / f"{stage.name}.log"
    start = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        try:
            code = process.wait(timeout=budget_s)
            status = "ok" if code == 0 else "failed"
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the stage and anything it started
            process.wait()
            code, status = None, "timed_out"
    text = log.read_text()
    return {"stage": stage.name, "status": status, "exit_code": code,
            "seconds": round(time.monotonic() - start, 1), "budget_s": budget_s,
            "command": " ".join(["python", *command[1:]]), "result": stage_result(stage, text),
            "pair": None if stage.bench is None else stage.pair,
            "tail": text[-1500:] if status != "ok" else ""}


def stage_result(stage: Stage, text: str):
    """The bench's JSON line, or pytest's counts; None when the stage printed neither."""
    if stage.bench is None:
        summary = re.findall(r"(\d+) (passed|failed|skipped|errors?)", text.splitlines()[-1] if text else "")
        return {word.rstrip("s") if word.startswith("error") else word: int(n) for n, word in summary} or None
    lines = [line for line in text.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def parse_budgets(pairs: list[str]) -> dict[str, float]:
    budgets = {}
    for pair in pairs:
        name, _, seconds = pair.partition("=")
        if name not in {s.name for s in STAGES} or not re.fullmatch(r"\d+(\.\d+)?", seconds):
            raise SystemExit(f"--budget {pair!r}: expected STAGE=SECONDS with STAGE one of "
                             f"{', '.join(s.name for s in STAGES)}")
        budgets[name] = float(seconds)
    return budgets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gpu_run.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="gpu_results", help="folder for each stage's JSON, log and plot")
    parser.add_argument("--dry-run", action="store_true", help="every stage on the CPU with tiny models")
    parser.add_argument("--part", type=int, choices=sorted({s.part for s in STAGES}),
                        help="run one part's stages, one command's worth (default: every stage)")
    parser.add_argument("--only", help="a comma list of stages to run (default: all, in order)")
    parser.add_argument("--budget", action="append", default=[], metavar="STAGE=SECONDS",
                        help="another time budget for one stage")
    parser.add_argument("--commit", help="the commit to record where the copy has no git history "
                        "(default: git's HEAD, or 'unknown')")
    parser.add_argument("--total", type=float,
                        help="seconds for the chosen stages together; a stage gets what is left, at most its "
                        "budget (default: their budgets added up)")
    args = parser.parse_args(argv)
    sizes = DRY if args.dry_run else GPU
    budgets = parse_budgets(args.budget)
    chosen = args.only.split(",") if args.only else [s.name for s in STAGES]
    unknown = set(chosen) - {s.name for s in STAGES}
    if unknown:
        parser.error(f"--only: unknown stage(s) {sorted(unknown)}; the stages are "
                     f"{', '.join(s.name for s in STAGES)}")
    stages = [s for s in STAGES if s.name in chosen and args.part in (None, s.part)]
    total = args.total if args.total is not None else sum(budgets.get(s.name, s.budget_s) for s in stages)
    results = Path(args.results).resolve()
    results.mkdir(parents=True, exist_ok=True)
    context = environment(args.commit)
    print(f"{'dry run, CPU' if args.dry_run else 'GPU run'}: {context}")
    print(f"sizes: {sizes}")
    print(f"host reads of the fast autoregressive loop: one every N = {context['host_read_every']} tokens")
    for stage in stages:
        print(f"  {stage.name:<22} budget {budgets.get(stage.name, stage.budget_s):>5.0f} s")
    print(f"  {'these stages':<22} budget {total:>5.0f} s", flush=True)
    deadline, failures = time.monotonic() + total, 0
    for stage in stages:
        left = deadline - time.monotonic()
        line = run_stage(stage, sizes, results, max(1.0, min(budgets.get(stage.name, stage.budget_s), left)))
        line.update(context, sizes=vars(sizes))
        (results / f"{stage.name}.json").write_text(json.dumps(line) + "\n")
        print(json.dumps(line), flush=True)
        failures += line["status"] != "ok"
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
