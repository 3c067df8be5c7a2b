"""Each exercise scored on its own (grader/implementation.py's ``Isolation``, grader/decider/run.py):
the learner's other exercises' steps are the reference's while an exercise is graded, never a
withheld one; a module of theirs that fails to import costs only its own exercises; and a
correct submission passes whatever is graded beside it."""
import csv
import json
import os
import subprocess
import sys

import pytest

from grader import exercises
from grader.decider import run
from grader.decider.reference import stood_in_noted
from grader.verdict import FAILED, LAW, PASSED, Finding, Verdict, format_text, stood_in_text
from tests.conftest import ROOT, run_grader
from tests.test_grade import SANDBOX, finished_lessons, write_submission

# In a runner grading speculative_sampling, then (a second exercise of the same runner) greedy_match:
# a learner package whose max_fn is wrong, whose trees.py does not import, whose __init__ raises.
ISOLATED = """
import json, sys
sys.path.insert(0, sys.argv[1])
from grader import exercises
from grader.decider.reference import reference_sources
from grader.implementation import Isolation
from grader.runner.reference import SentReference
SentReference(reference_sources(("speculative_sampling", "greedy_match")))
import solutions.residual, solutions.trees
isolation = Isolation("learner", exercises)
verification = isolation.load(exercises.get("speculative_sampling"))
import learner.residual, learner.eagle
seen = {
    "verifier's max_fn": verification.max_fn is solutions.residual.max_fn,
    "residual's max_fn": learner.residual.max_fn is solutions.residual.max_fn,
    "own verifier": verification.speculative_sampling.__module__,
    "greedy_match (withheld)": verification.greedy_match.__module__,
    "broken trees stood in": learner.eagle.tree_layout is solutions.trees.tree_layout,
    "from the broken package": __import__("learner").max_fn is solutions.residual.max_fn,
}
try:
    isolation.load(exercises.get("multi_draft"))
except SyntaxError as exc:
    seen["multi_draft"] = "SyntaxError, line %d" % exc.lineno
print(json.dumps(seen))
"""


def test_the_reference_stands_in_for_the_other_exercises_steps_alone(tmp_path):
    package = tmp_path / "learner"
    package.mkdir()
    (package / "__init__.py").write_text("raise ValueError('a broken package')\n")
    (package / "residual.py").write_text("def max_fn(x):\n    return x  # wrong\n")
    (package / "verification.py").write_text(
        "from learner.residual import max_fn\n\n"
        "def speculative_sampling(target_dists, proposal_dists, candidate_tokens, generator=None):\n"
        "    return max_fn(target_dists)\n\n"
        "def greedy_match(target_dists, candidate_tokens):\n    return None\n")
    (package / "trees.py").write_text("def tree_layout(:\n")
    (package / "eagle.py").write_text("from learner.trees import tree_layout\n")
    result = subprocess.run([sys.executable, "-c", ISOLATED, str(tmp_path)], capture_output=True, text=True,
                            cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    *printed, last = result.stdout.splitlines()
    assert json.loads(last) == {
        "verifier's max_fn": True, "residual's max_fn": True,
        "own verifier": "learner.verification",  # the graded exercise's own
        "greedy_match (withheld)": "learner.verification",  # a stand-in for it: never the reference's
        "broken trees stood in": True, "from the broken package": True,
        "multi_draft": "SyntaxError, line 1",  # its own module's error, though another exercise met it first
    }
    assert any("learner/trees.py failed to import (SyntaxError" in line for line in printed)
    assert any("learner/__init__.py failed to import (ValueError: a broken package)" in line for line in printed)


def test_exercises_share_a_runner_only_when_they_withhold_the_same():
    batches = run.runner_batches(["max_fn", "tree_attention", "speculative_decoding_verify", "feature_draft",
                                  "multi_draft", "eagle_loss", "processors"])
    assert batches == [["max_fn", "speculative_decoding_verify"], ["tree_attention", "multi_draft"],
                       ["feature_draft", "eagle_loss"], ["processors"]]


GRADED = ["tree_attention", "feature_draft", "speculative_sampling"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One class graded once (six runners): the reference copied as a submission, and one with a
    wrong max_fn, a trees.py that does not import and a lessons/__init__.py that raises.
    tree_attention and feature_draft together: feature_draft's check lays out its tree with the
    reference's tree_layout, which tree_attention's runner withholds."""
    root = tmp_path_factory.mktemp("isolation")
    done = finished_lessons()
    write_submission(root / "class" / "reference", done)
    write_submission(root / "class" / "broken", dict(done, **{
        "residual.py": done["residual.py"].replace("x.clamp(min=0)", "x"),
        "trees.py": done["trees.py"] + "\ndef unfinished(:\n",
        "__init__.py": "raise ImportError('a typo in the package')\n"}))
    out = root / "gradescope"
    result = run_grader("grade", str(root / "class"), "--exercises", *GRADED, "--jobs", "2",
                        "--csv", str(root / "long.csv"), "--gradescope", str(out), *SANDBOX)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = {(r["submission"], r["exercise"]): r for r in csv.DictReader((root / "long.csv").open())}
    outputs = {name: {t["name"].split(":")[0]: t["output"] for t in json.loads(
        (out / name / "results.json").read_text())["tests"]} for name in ("reference", "broken")}
    return rows, outputs


def test_the_reference_passes_tree_attention_beside_feature_draft(graded):
    rows, _ = graded
    assert {e: rows[("reference", e)]["status"] for e in GRADED} == dict.fromkeys(GRADED, "passed"), \
        {e: rows[("reference", e)]["summary"] for e in GRADED}


def test_one_bug_costs_one_exercise(graded):
    rows, outputs = graded
    status = {e: rows[("broken", e)]["status"] for e in GRADED}
    assert status == {"tree_attention": "error", "feature_draft": "passed", "speculative_sampling": "passed"}, \
        {e: rows[("broken", e)]["summary"] for e in GRADED}
    assert "syntax error" in rows[("broken", "tree_attention")]["summary"]  # trees.py's own exercise
    assert "graded on its own: the reference's max_fn stood in for yours." in outputs["broken"]["speculative_sampling"]
    assert "graded on its own" not in outputs["broken"]["feature_draft"]  # its reference calls no other step
    said = "lessons/__init__.py failed to import (ImportError: a typo in the package)"
    assert said in outputs["broken"]["speculative_sampling"] and said in outputs["broken"]["feature_draft"]


def test_a_verdict_says_which_of_the_learners_own_steps_failed_in_the_run():
    verdicts = [Verdict("max_fn", FAILED, "", 1), Verdict("speculative_sampling", PASSED, "", 2),
                Verdict("speculative_generate", FAILED, "", 3)]
    noted = {v.exercise: v for v in stood_in_noted(verdicts)}
    assert (noted["speculative_sampling"].stood_in, noted["speculative_sampling"].stood_in_failed) == (["max_fn"], ["max_fn"])
    assert stood_in_text(noted["speculative_sampling"]) == (
        "passes with the reference's max_fn in place of yours; your max_fn did not pass its own check in this "
        "run — fix it first.")
    assert (noted["speculative_generate"].stood_in, noted["speculative_generate"].stood_in_failed) == (
        ["speculative_sampling"], [])  # the learner's passed
    assert stood_in_text(noted["speculative_generate"]) == (
        "graded on its own: the reference's speculative_sampling stood in for yours.")
    assert noted["max_fn"].stood_in == [] and "graded on its own" not in format_text(noted["max_fn"])


@pytest.mark.slow  # every exercise's check with its runner: minutes
def test_the_reference_passes_every_exercise_through_run_autograder(tmp_path):
    """The reference copied as a learner's lessons/, graded by an autograder zip that grades
    every exercise (its run_autograder runs `grader grade` on it): all pass, all at once."""
    from tests.test_release import unpacked

    archive = tmp_path / "autograder.zip"
    built = run_grader("autograder", str(archive), *SANDBOX)
    assert built.returncode == 0, built.stderr
    folder = unpacked(archive, tmp_path / "gradescope")
    write_submission(folder / "submission", finished_lessons())
    env = {**os.environ, "AUTOGRADER_PYTHON": sys.executable, "AUTOGRADER_ROOT": str(folder)}
    graded = subprocess.run([str(folder / "source" / "run_autograder")], capture_output=True, text=True,
                            env=env, timeout=1800)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    tests = json.loads((folder / "results" / "results.json").read_text())["tests"]
    assert [t["name"] for t in tests] == [f"{e.id}: passed" for e in exercises.EXERCISES], \
        [t["output"][:400] for t in tests if t["status"] != "passed"]


def test_a_statistical_failure_counts_only_when_fresh_draws_repeat_it(monkeypatch):
    """Scripted runners: ``lucky`` fails a law by chance, then passes on fresh draws; ``biased``
    fails on both; ``wrong`` fails a value, which no fresh draw changes: not decided again."""
    law = Finding("law of token 1", "", LAW, "p-value 1e-5")
    first_seeds = {"speculative_sampling": 11, "multi_draft": 12, "max_fn": 13}
    failing = {11, 12, run.fresh_seed(12), 13}
    decided = []

    def scripted(runner, batch, timeout, manifest):
        for exercise in batch:
            seed = runner.seeds[exercise]
            decided.append((exercise, seed))
            finding = Finding("norm", "", "value", "wrong") if exercise == "max_fn" else law
            yield Verdict(exercise, FAILED if seed in failing else PASSED, "summary.", seed,
                          findings=[finding] if seed in failing else [])

    monkeypatch.setattr(run, "_decided", scripted)
    verdicts = {v.exercise: v for v in run.run_isolated(list(first_seeds), "lessons", first_seeds, grading=True)}
    assert sorted(decided) == sorted([*first_seeds.items(), ("speculative_sampling", run.fresh_seed(11)),
                                      ("multi_draft", run.fresh_seed(12))])
    lucky, biased, wrong = verdicts["speculative_sampling"], verdicts["multi_draft"], verdicts["max_fn"]
    assert lucky.status == PASSED and lucky.seed == run.fresh_seed(11)
    assert f"A first draw (seed 11) failed 1 statistical test(s); fresh draws (seed {run.fresh_seed(11)}) passed" \
        in lucky.summary
    assert biased.status == FAILED and biased.seed == 12 and "did not pass either (failed), so it counts" in biased.summary
    assert wrong.status == FAILED and wrong.summary == "summary."


def test_a_traceback_is_given_once():
    """A lessons/__init__.py that raises costs every exercise under `grader check` (the learner's own
    chain), with one traceback: the later verdicts point back to the first."""
    same = dict(status="error", summary="importing your code failed with NameError.", seed=0, traceback="Traceback …")
    verdicts = list(run._tracebacks_once(iter([Verdict("max_fn", **same), Verdict("greedy_match", **same),
                                               Verdict("ngram", "error", "other.", 0, traceback="Traceback 2")])))
    assert [v.traceback for v in verdicts] == ["Traceback …", "", "Traceback 2"]
    assert verdicts[1].summary == "importing your code failed with NameError. (the traceback is shown once, with max_fn)"
