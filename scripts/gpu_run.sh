#!/usr/bin/env bash
# The GPU measurements of docs/benchmarks.md, on one CUDA machine with the package installed:
# the GPU tests, then grader bench on a ~1.6B-parameter synthetic pair (greedy and T = 1) and
# on the shipped pair, each with lesson 7's fast loops (static caches, CUDA graphs) beside
# the eager loops (greedy runs; within the 10-minute limit of one call): their JSON's "fast" holds the compiled step against its memory floor; the sampling run adds lesson 8's batch sizes ("batch", "crossover_batch"). Results (logs, JSON lines, plots) go to the folder given (default gpu_results).
set -uo pipefail
out=${1:-gpu_results}
mkdir -p "$out"
{
  nvidia-smi -L
  python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
  timeout 150 python3 -m pytest -q -s -p no:cacheprovider tests/test_gpu.py tests/test_synthetic.py
} 2>&1 | tee "$out/gpu_tests.txt"
big="--device cuda --dtype bfloat16 --layers 24 --hidden 2048"
timeout 240 python3 -m grader bench $big --repeats 3 --json --plot "$out/sweep_1b_greedy.png" 2>&1 | tee "$out/bench_1b_greedy.txt"
timeout 150 python3 -m grader bench $big --sampling --quick --no-fast --batch 1,2,4,8,16,32 --json --plot "$out/sweep_1b_sampling.png" 2>&1 | tee "$out/bench_1b_sampling.txt"
timeout 50 python3 -m grader bench --pair shipped --device cuda --quick --json --plot "$out/sweep_shipped.png" 2>&1 | tee "$out/bench_shipped.txt"
