"""The power studies: how surely each check catches its mutants, how rarely it fails
correct code, and how long it takes; ``python -m grader.studies.power NAME`` runs one
(``__main__.py``) and writes its statistics page (``report.py``)."""
