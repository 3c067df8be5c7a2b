"""One check per exercise, each a module with ``run(check)`` named in grader/exercises.py;
``harness`` (``CheckRun``), which they are written against; ``verifier_rounds``, shared by
the verifier checks."""
