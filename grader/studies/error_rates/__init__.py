"""The error-rate studies: how surely each check catches its mutants, how rarely it fails
correct code, and how long it takes; ``python -m grader.studies.error_rates NAME`` runs one
(``__main__.py``) and writes its statistics page (``report.py``)."""
