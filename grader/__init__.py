"""The course's toolkit: the grader, its exact-law oracle, the benchmarks, the models.

``from grader import check, load_pair``; both are imported on first use, so the
command line starts without loading torch. Importing ``grader`` does nothing else: the
processes that must run the course's code from its source alone install
``sources.SourceOnlyFinder`` themselves (``sources.course_alone``, first in every grader
process; ``decider.run_isolated``; ``check`` here, before the notebook front end loads).

Layout, by the part each package plays:

- the fronts: ``cli`` (``grader check|list|bench|demo|grade|audit|release|autograder``: each
  command's module owns its ``add_arguments`` and ``run``; ``commands/`` holds check, list and
  grade's, the tools hold theirs; ``arguments`` their shared value parsers and usage error),
  ``notebook`` (``check()`` in a notebook), ``grade`` (a class graded for an instructor),
  ``gradebook`` (what grading writes: the table, the CSV, Gradescope's results.json),
  ``progress`` (statuses);
- shared records: ``sources`` (the course's code run from verified source only),
  ``exercises`` (the table of exercises, and the names the course's packages export),
  ``verdict`` (verdicts and their text), ``protocol`` (the runner's records, each a dataclass,
  and the one decoder that checks them), ``wire`` (how a value crosses from the runner to the
  decider), ``implementation`` (where a learner's code is found and imported, and whether the
  reference is installed);
- ``decider/``: the process that decides verdicts; it replays checks on the runner's
  records and never imports the learner's code;
- ``runner/``: the process that imports the learner's code, runs the checks on it and
  sends what every call gave;
- ``checks/``: one check per exercise, and ``checks.harness`` (``CheckRun``), which both
  processes run them with;
- ``judges/``: a check's expected values and the properties it records from them, run by the
  decider alone (``check.judge``); the runner's sandbox covers them;
- ``judged/``: what a check hands its judges: each judge's one frozen dataclass argument, and
  the cases, constants and hints both halves read, one module per family;
- ``observers/``: what a check puts around the learner's code to watch it (model wrappers
  that log forwards, host-sync and torch-call counters), carried as data to the decider;
- ``oracle/``: exact laws, tiny enumerable models and the statistical tests;
- ``bench/``: ``grader bench`` and ``grader demo``, and the measurements notebooks draw;
- ``figures/``: the notebooks' figures and pictures, and the bench's γ-sweep plot;
- ``audit/``: ``grader audit``, the exactness tests pointed at any sampler (transformers',
  a course loop, a user's adapter); it runs that sampler in its own process, so it is a
  tool for one's own code, never part of grading;
- ``models/``: the shipped pair (``models/shipped/``), its corpus, the synthetic pair;
- ``studies/``: the grader's studies of itself: mutants each check must catch, valid
  variants it must pass, checks run in one process for the test suite, the exact laws of
  known bugs, the error-rate studies that write the statistics pages, the false-failure
  calibrations, and the GPU measurements of docs/benchmarks.md (``scripts/gpu_run.sh``);
- ``release/``: what the course hands out: ``lessons/`` written from ``solutions/``, a release
  for learners (with or without ``solutions/``), and the Gradescope autograder, whose
  ``run_autograder`` runs ``grader grade`` as a command.

What may import what (tests/test_layout.py holds the code to it): the oracle, observers
and models import no other part, the shared records only one another; ``judged`` imports
only those and the reference; the checks import only those (and the reference
``solutions``); the judges import ``judged``, of the checks only the check run's type
(``checks.harness``), the oracle and the reference, and only the decider loads them; the decider adds the checks, but never
``implementation``, the runner or a learner's package; the runner imports the checks and
``implementation``, never a judge; the release imports only the shared records and the
decider's stubbed reference (its public reference is stubbed alike), and reads ``solutions``
as text; ``solutions`` imports nothing of the grader (its ``MODULES`` and modules' ``__all__`` are read as text); no
part imports ``lessons`` by name; no part of grading (the checks, judges, oracle, decider,
runner, observers and shared records) imports ``bench``, ``audit`` or ``studies``. The
runner runs the checks' own code to make their calls in order, statistics included
(except the judges'); nothing it computes is trusted.
"""
__all__ = ["check", "load_pair"]


def __getattr__(name):
    if name == "check":
        from grader import sources

        sources.install()  # the notebook's decider: every course module it imports runs from source
        from grader.notebook import check
        return check
    if name == "load_pair":
        from grader.models import load_pair
        return load_pair
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
