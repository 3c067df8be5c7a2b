"""The decider's preload (grader/decider/preload.py): only what the chosen exercises' decisions
need is imported, and once learner code may run, nothing more is: a decision that needs a
module the preload missed ends in an error naming it, never in a silent import.

Cheap by default: the guard on planted modules in this process, one decider process with two
max_fn runs (a preload missing the judge, then the full one), and one model-loading exercise
graded under the guard. ``-m slow`` grades every exercise's reference under the guard, each
in a fresh decider process (the sweep that holds ``needed`` complete)."""
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from grader import exercises
from grader.decider import preload
from tests.conftest import ROOT

# a decider process: the reference's verdicts of argv[1:], each graded on its own preload
DECIDER = """
import json, sys
from grader import sources
sources.course_alone()
from grader.decider import preload, run_isolated, sandbox

sandboxed = not sandbox.unavailable()
verdicts = [[v.exercise, v.status, v.summary] for e in sys.argv[1:]
            for v in run_isolated([e], "solutions", 0, sandboxed=sandboxed)]
print(json.dumps(verdicts))
"""

# max_fn decided twice in one process: first on a preload that leaves its judge out, then on
# the real one; what the decider had imported after each
MISSING_JUDGE = """
import json, sys
from grader import sources
sources.course_alone()
from grader.decider import preload, run_isolated, sandbox

sandboxed = not sandbox.unavailable()
real, judge = preload.needed, "grader.judges.max_fn"
preload.needed = lambda ids: preload.Needed(tuple(m for m in real(ids).course if m != judge),
                                            real(ids).statements)
out = {}
for name in ("missing", "full"):
    verdict = next(run_isolated(["max_fn"], "solutions", 0, sandboxed=sandboxed))
    out[name] = [verdict.status, verdict.summary, sorted(
        m for m in sys.modules if m.startswith(("grader.judges", "grader.models", "solutions", "transformers"))
        and m.count(".") < 3)]
    preload.needed = real
print(json.dumps(out))
"""


def decided(script: str, *args: str) -> object:
    """The JSON a decider ``script`` prints, run as its own process (``-P``: the course from
    its root alone)."""
    done = subprocess.run([sys.executable, "-P", "-c", script, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_preload_is_what_the_exercise_declares():
    """max_fn's decisions need its check, its judge and what they import, and none of the
    other judges, the models or the reference; a judge named by string in a check that another
    imports is followed (tree_generate's check imports kv_cache's ``check_discipline``, whose
    default judge is ``"kv_cache.discipline"``); ``from grader import load_pair`` reads what
    ``grader``'s ``__getattr__`` imports, and ``from grader import exercises`` does not."""
    max_fn = preload.needed(("max_fn",)).course
    assert {"grader.checks.max_fn", "grader.judges.max_fn", "grader.judges.mistakes",
            "grader.checks.harness", "grader.decider.replay", "grader.oracle.stats"} <= set(max_fn)
    assert not [m for m in max_fn if m.startswith(("grader.models", "solutions", "grader.notebook"))
                or m.startswith("grader.judges.") and m not in ("grader.judges.max_fn", "grader.judges.mistakes")]
    assert ("scipy", ("stats",)) in preload.needed(("max_fn",)).statements
    tree = preload.needed(("tree_generate",)).course
    assert {"grader.judges.tree_generate", "grader.judges.kv_cache", "grader.checks.kv_cache"} <= set(tree)
    assert "grader.models" in preload._lazy("grader", ("load_pair",))[0]
    assert preload._lazy("grader", ("exercises",)) == ([], [])


@pytest.fixture
def planted(tmp_path, monkeypatch):
    """A folder on the import path with ``unchanged.py``, ``rewritten.py`` and the package
    ``known`` (its ``__init__`` imported) written before the guard is dated; the test
    rewrites and plants after."""
    for name in ("unchanged.py", "rewritten.py", "known/__init__.py", "known/sub.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("RAN = True\n")
        os.utime(tmp_path / name, (0, 0))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    importlib.import_module("known")
    yield tmp_path
    for name in ("unchanged", "rewritten", "known", "known.sub", "planted_after"):
        sys.modules.pop(name, None)


def test_the_guard_refuses_the_course_and_changed_files(planted, monkeypatch):
    """Under the guard, in every thread: a course module the preload did not import raises
    ``LateImport`` and is recorded; so does a library module whose file, or a new module
    planted, was written after the guard was dated (even with its modification time set
    back); a library's module from a file older than that imports (a lazy import of its own),
    and so do preloaded and built-in modules; the import path's finders are back after it."""
    monkeypatch.setattr(preload, "CLOCK_MARGIN", 0.0)  # the files' change times a tick apart will do
    time.sleep(0.1)
    guard = preload.ImportGuard(time.time())
    time.sleep(0.1)
    for name in ("rewritten.py", "known/sub.py", "planted_after.py"):
        (planted / name).write_text("RAN = 'planted'\n")
        os.utime(planted / name, (0, 0))  # the modification time set back: the change time stays
    finders = list(sys.meta_path)
    unimported = next((m for m in preload.needed(("tree_generate",)).course
                       if m not in sys.modules and m.rpartition(".")[0] in sys.modules), "grader.no_such_module")
    errors = {}

    def in_a_thread():
        try:
            import rewritten  # noqa: F401
        except ImportError as exc:
            errors["thread"] = exc

    with guard:
        with pytest.raises(preload.LateImport, match=unimported):
            importlib.import_module(unimported)
        for name in ("rewritten", "known.sub", "planted_after"):
            with pytest.raises(preload.LateImport, match="changed after your code could have run"):
                importlib.import_module(name)
        thread = threading.Thread(target=in_a_thread)
        thread.start()
        thread.join()
        import unchanged  # noqa: F401
        import grader.decider.preload  # noqa: F401  (imported)
        for name in sorted(set(sys.builtin_module_names) - set(sys.modules))[:1]:
            importlib.import_module(name)  # built into the interpreter: never a file
        assert importlib.util.find_spec("no_such_package_anywhere") is None
        refused = [module for module, _ in guard.taken()]
    assert isinstance(errors["thread"], preload.LateImport)
    assert refused == [unimported, "rewritten", "known.sub", "planted_after"] and guard.taken() == []
    assert not {"rewritten", "known.sub", "planted_after", unimported} & set(sys.modules)
    assert sys.modules["unchanged"].RAN is True
    assert sys.meta_path == finders


def test_a_decision_needing_an_unpreloaded_module_is_an_error_naming_it():
    """A preload that misses max_fn's judge: the verdict is an error that names it as the
    grader's bug, and the decider never imported it; the real preload passes, and leaves the
    other judges, the models, transformers and the reference unimported."""
    out = decided(MISSING_JUDGE)
    status, summary, imported = out["missing"]
    assert status == "error" and "`grader.judges.max_fn`" in summary and "broken, not your code" in summary
    assert "grader.judges.max_fn" not in imported, imported
    status, summary, imported = out["full"]
    assert status == "passed", summary
    assert imported == ["grader.judges", "grader.judges.max_fn", "grader.judges.mistakes"]


SWEPT_BY_DEFAULT = ("on_policy_batch",)  # cheap, and it loads the shipped models (transformers' probes)


@pytest.mark.parametrize("exercise", [
    pytest.param(e.id, marks=() if e.id in SWEPT_BY_DEFAULT else pytest.mark.slow)
    for e in exercises.EXERCISES if e.check])
def test_the_reference_passes_under_the_guard(exercise):
    """Each exercise's reference, graded in a decider of its own with the preload ``needed``
    derives and the guard on: a module the derivation misses would make it an error."""
    [[_, status, summary]] = decided(DECIDER, exercise)
    assert status == "passed", summary
