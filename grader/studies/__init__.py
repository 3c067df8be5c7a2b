"""The grader's studies of itself, never part of grading (no part of the grading core
imports this package: tests/test_layout.py):

- ``mutants`` (the reference with one known bug, each check must catch) and ``variants``
  (the reference written another correct way, each check must pass);
- ``in_process``: checks run in one process, for the test suite and the studies;
- ``mutant_laws``: the exact laws of known bugs, and ``detection``: how surely a test sees
  one;
- ``power/``: the power studies, ``python -m grader.studies.power NAME``, which write the
  statistics pages of ``docs/``.
"""
