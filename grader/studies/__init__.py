"""The grader's studies of itself, never part of grading (no part of the grading core
imports this package: tests/test_layout.py):

- ``mutants`` (the reference with one known bug, each check must catch) and ``variants``
  (the reference written another correct way, each check must pass);
- ``in_process``: checks run in one process, for the test suite and the studies;
- ``mutant_laws``: the exact laws of known bugs, and ``detection``: how surely a test sees
  one;
- ``error_rates/``: the studies of each check's error rates (how often it misses a mutant,
  how often it fails correct code) and its power statement, ``python -m
  grader.studies.error_rates NAME``, which write the statistics pages of ``docs/``;
- ``calibration/``: how often the checks fail correct code, against the rate they promise;
- ``gpu/``: the GPU measurements of docs/benchmarks.md and their table (``scripts/gpu_run.sh``).
"""
