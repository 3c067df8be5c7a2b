"""Calibration: how often the checks fail correct code, against the rate they promise.

- ``variants``: every check on the reference and on the valid variants of
  ``tests/valid_variants/`` under many seeds, appended run by run to a JSON-lines file, and
  the table of docs/statistics_variants.md written from it
  (``python -m grader.studies.calibration.variants``);
- ``verifiers``: the lesson 1–2 checks' error control: their time, how far out their tests'
  p-values stay right, and the family level at which each run would have failed
  (``python -m grader.studies.calibration.verifiers``; docs/statistics.md shows its tables).
"""
