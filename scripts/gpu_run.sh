#!/usr/bin/env bash
# The GPU measurements of docs/benchmarks.md, on one CUDA machine with the package installed,
# in stages of two parts, each one 10-minute command (grader/studies/gpu/suite.py says what each measures):
# the GPU tests, lessons 4 and 7 (eager and fast loops, greedy and T = 1), lesson 8's batch
# curve and lesson 9's trees, on the 1.6B synthetic bfloat16 pair, and lesson 11's feature
# head on the shipped pair. Each stage prints its JSON
# line the moment it ends and writes it, its log and its plot to the results folder.
#   bash scripts/gpu_run.sh --part 1 --results gpu_results   # on the GPU: tests, lessons 4 and 7
#   bash scripts/gpu_run.sh --part 2 --results gpu_results   # lessons 8, 9 and 11
#   bash scripts/gpu_run.sh --dry-run --results /tmp/dry   # every stage on the CPU, tiny models
set -uo pipefail
nvidia-smi -L 2>/dev/null
exec python3 -m grader.studies.gpu.suite "$@"
