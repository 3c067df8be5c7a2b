"""The GPU measurements of docs/benchmarks.md: ``suite`` runs ``grader bench`` and the GPU
tests in stages that fit one short lease of a GPU (``scripts/gpu_run.sh`` is its entry
point), and ``table`` writes docs/benchmarks.md's GPU table from the stages' JSON lines
(``python -m grader.studies.gpu.table RESULTS``)."""
