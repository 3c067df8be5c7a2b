"""scripts/gpu_run.sh and docs/benchmarks.md's GPU table (grader/studies/gpu/): every stage
runs dry on the CPU with tiny models, a part runs its own stages, a stage out of time keeps
the ones before it, and the docs' table keeps the rows the table writer fills."""
import json
import os
import subprocess

from tests.conftest import ROOT


def gpu_run(tmp_path, *args) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """``scripts/gpu_run.sh --dry-run`` into ``tmp_path``: its result and its JSON lines."""
    result = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_run.sh"), "--dry-run", "--results",
                             str(tmp_path), *args], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "OMP_NUM_THREADS": "1"})
    return result, [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_gpu_run_dry_run_runs_every_stage_and_writes_each_line(tmp_path):
    """Every stage on the CPU with tiny models: one JSON line each, printed and written,
    with the device, the libraries, the commit and the sizes it ran."""
    from grader.studies.gpu.suite import COMMAND_LIMIT_S, STAGES

    # each part is one command, which may run 10 minutes: its stages' budgets leave 30 s of them
    for part in {stage.part for stage in STAGES}:
        assert sum(stage.budget_s for stage in STAGES if stage.part == part) <= COMMAND_LIMIT_S - 30
    result, lines = gpu_run(tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert [line["stage"] for line in lines] == [stage.name for stage in STAGES]
    assert "host reads of the fast autoregressive loop: one every N = 8 tokens" in result.stdout
    for line in lines:
        assert line["status"] == "ok" and line["result"], line
        assert json.loads((tmp_path / f"{line['stage']}.json").read_text()) == line
        assert {"device", "torch", "transformers", "commit", "sizes", "budget_s", "seconds"} <= set(line)
        assert line["seconds"] <= line["budget_s"]
    by_stage = {line["stage"]: line["result"] for line in lines}
    assert by_stage["gpu_tests"].get("failed", 0) == 0
    for stage in ("lessons_4_7_greedy", "lessons_4_7_sampling"):  # the eager loop and the fast ones
        assert by_stage[stage]["fast"]["floor_step_ms"] > 0 and by_stage[stage]["speedup_vs_autoregressive"] > 0
    assert "Greedy" in by_stage["lessons_4_7_greedy"]["processor"]
    assert "Multinomial" in by_stage["lessons_4_7_sampling"]["processor"]
    assert [row["batch_size"] for row in by_stage["lesson_8_batches"]["batch"]] == [1, 2]
    assert "crossover_batch" in by_stage["lesson_8_batches"]
    assert all(row["chain"]["speedup_vs_autoregressive"] > 0 for row in by_stage["lesson_9_trees"]["trees"])
    eagle = by_stage["lesson_11_eagle"]["eagle"]  # the shipped pair's head against its drafter
    assert {line["stage"]: line["pair"] for line in lines}["lesson_11_eagle"] == "shipped"
    assert by_stage["lesson_11_eagle"]["target"] == "shipped target" and 0 < eagle["alpha"] <= 1
    assert [row["method"] for row in eagle["rows"]][:2] == ["drafter chain γ=2", "head chain γ=3"]
    # docs/benchmarks.md's table, every row from its stage's file, kept under the device's name
    from grader.studies.gpu.table import ROWS, table

    rows = table(tmp_path, tmp_path / "data").splitlines()[2:2 + len(ROWS)]
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == sorted(f"gpu_cpu_{s.name}.json" for s in STAGES)
    assert [row.split(" | ")[0] for row in rows] == [f"| `gpu_cpu_{stage}.json`" for stage, *_ in ROWS]
    floor = by_stage["lessons_4_7_greedy"]["fast"]
    assert f"**{floor['target_step_ms'] / floor['floor_step_ms']:.2f}x**" in rows[3]
    assert "crossover at B = " in rows[7] and "(2, 2): " in rows[8] and "head chain γ=3: " in rows[9]


def test_gpu_run_part_runs_its_stages_and_one_out_of_time_keeps_the_stages_before_it(tmp_path):
    """``--part 2``: the second command's stages alone, in order. A stage killed by its budget
    says so in its own line; the one before stays whole, and the table says which is which."""
    from grader.studies.gpu.suite import STAGES

    result, lines = gpu_run(tmp_path, "--part", "2", "--budget", "lesson_9_trees=2", "--budget",
                            "lesson_11_eagle=0.5", "--commit", "0123abc")
    assert result.returncode == 1
    assert [line["stage"] for line in lines] == [stage.name for stage in STAGES if stage.part == 2]
    first, killed, _ = lines
    assert first["commit"] == killed["commit"] == "0123abc"  # a copy without git history says its commit
    assert first["stage"] == "lesson_8_batches" and first["status"] == "ok" and first["result"]["batch"]
    assert json.loads((tmp_path / "lesson_8_batches.json").read_text()) == first
    assert killed["stage"] == "lesson_9_trees" and killed["status"] == "timed_out"
    assert killed["result"] is None and killed["seconds"] < 10
    assert json.loads((tmp_path / "lesson_9_trees.json").read_text()) == killed
    from grader.studies.gpu.table import table

    rows = {row.split(" | ")[0].strip("|` "): row for row in table(tmp_path).splitlines()[2:]}
    assert "timed out after" in rows["lesson_9_trees.json"] and "not run" in rows["gpu_tests.json"]
    assert "B = 1: " in rows["lesson_8_batches.json"]
    run = f"{first['device']}, torch {first['torch']}, transformers {first['transformers']}, commit"
    busy = {**first, "result": {**first["result"], "warning": "WARNING: other processes competed"}}
    (tmp_path / "lesson_8_batches.json").write_text(json.dumps(busy))  # as on a busy machine, whatever this one is
    assert table(tmp_path).endswith("`lesson_8_batches`: WARNING: other processes competed")
    assert [line for line in table(tmp_path).splitlines() if run in line] == [f"{run} 0123abc."]  # one run
    (tmp_path / "lesson_9_trees.json").write_text(json.dumps({**killed, "commit": "4567def"}))
    assert [line for line in table(tmp_path).splitlines() if run in line] == [  # two: each run's stages named
        f"`lesson_8_batches`, `lesson_11_eagle`: {run} 0123abc.", f"`lesson_9_trees`: {run} 4567def."]


def test_gpu_run_refuses_an_unknown_stage():
    result = subprocess.run(["bash", str(ROOT / "scripts" / "gpu_run.sh"), "--budget", "trees=5"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "--budget 'trees=5': expected STAGE=SECONDS with STAGE one of gpu_tests" in result.stderr


def test_the_docs_gpu_table_has_the_rows_gpu_table_writes():
    """docs/benchmarks.md's GPU table, measured or not, keeps grader.studies.gpu.table's rows in
    its order: pasting the filled table replaces it row for row."""
    from grader.studies.gpu.table import ROWS

    docs = (ROOT / "docs" / "benchmarks.md").read_text()
    found = [line for line in docs.splitlines() if line.startswith("| `") and ".json` | " in line
             and any(line.startswith(f"| `{stage}.json`") or line.startswith("| `gpu_") for stage, *_ in ROWS)]
    assert [row.rsplit(" | ", 1)[0].split(" | ", 1)[1] for row in found] == \
        [f"{lesson} | {what} | {figure}" for _, lesson, what, figure, _ in ROWS]
