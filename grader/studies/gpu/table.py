"""docs/benchmarks.md's GPU table, written from the JSON lines of ``scripts/gpu_run.sh``.

    python -m grader.studies.gpu.table gpu_results                  # print the table
    python -m grader.studies.gpu.table gpu_results --save docs/data # and keep each stage's JSON there

Each row reads one figure from one stage's JSON (``RESULTS/<stage>.json``); ``--save`` copies
those files to ``gpu_<device>_<stage>.json`` (``gpu_h200_lesson_8_batches.json``) and the
table's first column names that copy, so every cell has its source. A stage that did not end
well says so in its rows ("timed out", "failed"), and one that did not run, "not run". The
lines under the table give the device, the libraries and the commit of each run whose stages
the folder holds (the two parts of a lease, or a stage run again later).
"""
import argparse
import json
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from grader.studies.gpu.suite import STAGES


def tests_figure(result: dict) -> str:
    return ", ".join(f"{result.get(word, 0)} {word}" for word in ("passed", "failed", "skipped"))


def eager_figure(result: dict) -> str:
    gamma, speeds = result["gamma"], result["tokens_per_second"]
    return (f"{result['speedup_vs_autoregressive']:.2f}x at γ = {gamma} "
            f"({speeds['speculative γ=%d' % gamma]:.0f} against {speeds['autoregressive']:.0f} tokens/s)")


def fast_figure(result: dict) -> str:
    fast = result["fast"]
    return (f"{fast['speedup_vs_fast_autoregressive']:.2f}x at γ = {fast['gamma']} (theory "
            f"{fast['theory_speedup_vs_fast_autoregressive']:.2f}x at c = {fast['cost_ratio_c']:.3f}, "
            f"α = {result['alpha']:.3f})")


def floor_figure(result: dict) -> str:
    fast = result["fast"]
    return (f"{fast['target_step_ms']:.3f} ms against {fast['floor_step_ms']:.3f} ms: "
            f"**{fast['target_step_ms'] / fast['floor_step_ms']:.2f}x**")


def batch_figure(result: dict) -> str:
    curve = ", ".join(f"B = {row['batch_size']}: {row['speedup']:.2f}x" for row in result["batch"])
    return f"{curve}; crossover at B = {result['crossover_batch']}"


def trees_figure(result: dict) -> str:
    return "; ".join(f"({', '.join(map(str, row['branching']))}): {row['speedup_vs_autoregressive']:.2f}x (chain γ = "
                     f"{row['chain']['gamma']}: {row['chain']['speedup_vs_autoregressive']:.2f}x)"
                     for row in result["trees"])


def eagle_figure(result: dict) -> str:
    rows = "; ".join(f"{row['method']}: {row['speedup_vs_autoregressive']:.2f}x" for row in result["eagle"]["rows"])
    return f"head α {result['eagle']['alpha']:.3f}, c {result['eagle']['cost_ratio_c']:.3f}; {rows}"


# (stage, lesson, what is measured, the JSON fields read, how they read)
ROWS: list[tuple[str, str, str, str, Callable[[dict], str]]] = [
    ("gpu_tests", "all", "`pytest tests/test_gpu.py` (greedy equality in float32 on CUDA, half precision, syncs "
     "counted by the CUDA runtime)", "passed / failed / skipped", tests_figure),
    *[row for stage, when in (("lessons_4_7_greedy", "greedy"), ("lessons_4_7_sampling", "T = 1")) for row in (
        (stage, "4", f"eager `speculative_generate(use_cache=True)` against autoregressive, {when}",
         "`speedup_vs_autoregressive`, `tokens_per_second`", eager_figure),
        (stage, "7", f"fast speculative against fast autoregressive, {when}",
         "`fast.speedup_vs_fast_autoregressive`", fast_figure),
        (stage, "7", f"fast decode step against its memory floor (goal ≤ 1.5x), {when}",
         "`fast.target_step_ms` / `fast.floor_step_ms`", floor_figure))],
    ("lesson_8_batches", "8", "batched speculative against batched autoregressive, by batch size (T = 1)",
     "`batch[].speedup`, `crossover_batch`", batch_figure),
    ("lesson_9_trees", "9", "token trees (branching per level) against chains of as many drafts",
     "`trees[].speedup_vs_autoregressive`, `trees[].chain`", trees_figure),
    ("lesson_11_eagle", "11", "shipped pair: the feature head's chains and dynamic trees against the token "
     "drafter's chain, greedy",
     "`eagle.rows[].speedup_vs_autoregressive`, `eagle.alpha`", eagle_figure),
]


def device_name(line: dict) -> str:
    """``gpu_h200`` for "NVIDIA H200", ``gpu_cpu`` for a dry run: the saved files' prefix."""
    words = re.findall(r"[a-z0-9]+", line.get("device", "unknown").lower())
    kept = [w for w in words if w not in ("nvidia", "tesla", "geforce", "pcie", "sxm", "nvl")] or ["unknown"]
    return "gpu_" + ("cpu" if kept[0] == "cpu" else "_".join(kept))


def table(results: Path, save: Path | None = None) -> str:
    """The markdown table of the stage files in ``results``; each file copied into ``save``."""
    lines, sources = {}, {}
    for stage in STAGES:
        path = results / f"{stage.name}.json"
        if path.is_file():
            lines[stage.name] = json.loads(path.read_text())
            sources[stage.name] = path.name
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                copy = save / f"{device_name(lines[stage.name])}_{stage.name}.json"
                shutil.copyfile(path, copy)
                sources[stage.name] = copy.name
    out = ["| stage (JSON) | lesson | what | figure | value |", "| --- | --- | --- | --- | --- |"]
    for stage, lesson, what, figure, value in ROWS:
        line = lines.get(stage)
        if line is None:
            cell = "not run"
        elif line["status"] != "ok" or line["result"] is None:
            cell = f"{line['status'].replace('_', ' ')} after {line['seconds']} s (its log: {stage}.log)"
        else:
            cell = value(line["result"])
        out.append(f"| `{sources.get(stage, stage + '.json')}` | {lesson} | {what} | {figure} | {cell} |")
    runs: dict[tuple, list[str]] = {}  # stage files of several runs: each run's stages named
    for stage, line in lines.items():
        runs.setdefault((line["device"], line["torch"], line["transformers"], line["commit"]), []).append(stage)
    out += [""] if runs else []  # a blank line between the table and the lines under it
    for (device, torch, transformers, commit), stages in runs.items():
        which = "" if len(runs) == 1 else ", ".join(f"`{stage}`" for stage in stages) + ": "
        out.append(f"{which}{device}, torch {torch}, transformers {transformers}, commit {commit}.")
    for stage, line in lines.items():  # the bench's own warning: the host's CPU was shared while timing
        if isinstance(line.get("result"), dict) and line["result"].get("warning"):
            out.append(f"`{stage}`: {line['result']['warning']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.studies.gpu.table", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the folder scripts/gpu_run.sh wrote (--results)")
    parser.add_argument("--save", help="a folder to keep each stage's JSON in (docs/data)")
    args = parser.parse_args(argv)
    results = Path(args.results)
    if not results.is_dir():
        parser.error(f"{results} is not a folder: give the --results folder of scripts/gpu_run.sh")
    print(table(results, Path(args.save) if args.save else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
