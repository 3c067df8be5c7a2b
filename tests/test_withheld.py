"""The reference a grading runner gets (grader/decider/reference.py, grader/runner/reference.py):
each exercise's own names and every step that could stand in for them are stubs, nothing of
their bodies is left, the rest works, and no check meets a stub of its own exercise's making."""
import ast
import json
import subprocess
import sys

from grader import exercises
from grader.decider import reference
from grader.decider.reference import reference_sources
from grader.release import lessons as release
from tests.conftest import ROOT

USE_STUBS = """
import json, sys, torch
from grader.runner.reference import ReferenceWithheld, SentReference
SentReference(json.loads(sys.stdin.read()))
import solutions.residual, solutions.sampling, solutions.autoregressive, solutions.batched
seen = {"as_list": solutions.autoregressive.as_list(3), "repr": repr(solutions.sampling.GreedyProcessor()),
        "withheld": list(solutions.residual.__withheld__)}
for name, call in (("max_fn", lambda: solutions.residual.max_fn(torch.zeros(3))),
                   ("greedy", lambda: solutions.sampling.GreedyProcessor()(torch.zeros(3))),
                   ("batched", lambda: solutions.batched.batched_speculative_sampling(None, None, None))):
    try:
        call()
        seen[name] = "ran"
    except ReferenceWithheld as exc:
        seen[name] = str(exc)
print(json.dumps(seen))
"""

# Steps of the reference that do another exercise's job, found by hand: each is withheld while
# that exercise is graded, whatever is graded beside it (tests/hostile/borrows_a_later_lesson.py
# borrows the first of several through the grader).
STAND_INS = {
    "autoregressive_generate": [("speculative", "speculative_generate"), ("ngram", "ngram_assisted_speculative_generate"),
                                ("fast", "fast_autoregressive_generate"), ("batched", "batched_speculative_generate"),
                                ("trees", "tree_speculative_generate"), ("eagle", "eagle_generate")],
    "speculative_decoding_verify": [("verification", "speculative_sampling"), ("batched", "batched_speculative_sampling"),
                                    ("trees", "multi_draft_sampling")],
    "speculative_sampling": [("batched", "batched_speculative_sampling"), ("trees", "multi_draft_sampling"),
                             ("verification", "speculative_decoding_verify")],
    "greedy_match": [("verification", "speculative_sampling"), ("batched", "batched_speculative_sampling")],
    "speculative_generate": [("fast", "fast_speculative_generate"), ("batched", "batched_speculative_generate"),
                             ("trees", "tree_speculative_generate"), ("eagle", "eagle_generate")],
    "kv_cache": [("fast", "fast_speculative_generate"), ("batched", "batched_speculative_generate"),
                 ("trees", "tree_speculative_generate")],
    "batched_verify": [("trees", "multi_draft_sampling")],
    "multi_draft": [("eagle", "verify_deterministic_children")],
    "tree_generate": [("eagle", "eagle_tree_generate")],
    "expected_acceptance": [("distill", "divergence"), ("distill", "distillation_loss"), ("distill", "held_out_alpha")],
    "distillation_loss": [("eagle", "eagle_loss")],
    "eagle_loss": [("eagle", "unrolled_eagle_loss")],
    "eagle_generate": [("eagle", "eagle_tree_generate")],
}


def test_withheld_names_raise_and_the_rest_of_the_reference_works():
    sent = json.dumps(reference_sources(("max_fn",)))
    result = subprocess.run([sys.executable, "-c", USE_STUBS], input=sent, capture_output=True,
                            text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["as_list"] == [3] and seen["repr"].startswith("GreedyProcessor(") and seen["greedy"] == "ran"
    assert "max_fn" in seen["withheld"]  # and the module's names that could do its job
    assert sorted(seen["withheld"]) == sorted(name for module, name in reference.withheld("max_fn") if module == "residual")
    assert seen["max_fn"].startswith("`solutions.residual.max_fn` is withheld while max_fn is graded: it is "
                                     "part of that exercise")
    assert seen["batched"].startswith("`solutions.batched.batched_speculative_sampling` is withheld while max_fn "
                                      "is graded: it is a step of lesson 8 that could do that exercise's job")


def test_each_stand_in_is_withheld_with_the_exercise_it_could_do():
    for exercise_id, names in STAND_INS.items():
        assert set(names) <= reference.withheld(exercise_id), exercise_id
        assert set(names) <= reference.stand_ins(exercise_id), exercise_id


CALL_STAND_INS = """
import importlib, inspect, json, sys
from grader.decider.reference import reference_sources
from grader.runner.reference import ReferenceWithheld, SentReference
raised = {}
for exercise, names in json.loads(sys.argv[1]).items():
    SentReference(reference_sources((exercise,)))  # a fresh solutions, as that exercise's runner has it
    for module, name in names:
        step = getattr(importlib.import_module(f"solutions.{module}"), name)
        required = [p for p in inspect.signature(step).parameters.values() if p.default is p.empty]
        try:
            step(*[None] * len(required))
            raised[f"{exercise}: {name}"] = "ran"
        except ReferenceWithheld:
            raised[f"{exercise}: {name}"] = "withheld"
        except Exception as exc:
            raised[f"{exercise}: {name}"] = type(exc).__name__
print(json.dumps(raised))
"""


def test_each_stand_in_raises_in_the_runner_of_the_exercise_it_could_do():
    result = subprocess.run([sys.executable, "-c", CALL_STAND_INS, json.dumps(STAND_INS)], capture_output=True,
                            text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    raised = json.loads(result.stdout)
    assert raised == {f"{e}: {name}": "withheld" for e, names in STAND_INS.items() for _, name in names}


def test_what_an_exercise_builds_on_stays_and_what_its_check_needs_is_never_a_stub():
    """Lesson 10's loop calls the reference's distillation_loss, lesson 11's tree loop its
    verifier of children: earlier or same-lesson steps an exercise builds on are never withheld;
    and no check's runner side reaches a name its own runner withholds (feature_draft's check
    lays out its tree with lesson 9's tree_layout)."""
    assert ("distill", "distillation_loss") not in reference.withheld("train_drafter")
    assert ("eagle", "verify_deterministic_children") not in reference.withheld("eagle_tree_generate")
    assert ("trees", "tree_layout") in reference.check_needs("feature_draft")
    for exercise in exercises.EXERCISES:
        assert not reference.check_needs(exercise.id) & reference.withheld(exercise.id), exercise.id
        assert reference.own(exercise.id) <= reference.withheld(exercise.id)


def test_nothing_of_a_withheld_body_is_sent():
    for exercise in exercises.EXERCISES:
        sent = reference_sources((exercise.id,))
        for module, name in reference.withheld(exercise.id):
            stub, = [n for n in ast.parse(sent[f"solutions.{module}"]).body if getattr(n, "name", None) == name]
            original, = [n for n in ast.parse((ROOT / "solutions" / f"{module}.py").read_text()).body
                         if getattr(n, "name", None) == name]
            statements = {ast.dump(s) for f in ast.walk(original) if isinstance(f, ast.FunctionDef)
                          and not f.name.startswith("__") for s in f.body[1:]}
            assert not statements & {ast.dump(s) for s in ast.walk(stub) if isinstance(s, ast.stmt)}, \
                (exercise.id, name)


def test_the_verdict_names_the_steps_the_reference_stood_in_for():
    assert reference.stood_in("speculative_generate") == {"speculative_sampling": ("speculative_sampling",)}
    assert reference.stood_in("train_drafter")["distillation_loss"] == ("distillation_loss",)
    assert "max_fn" not in reference.stood_in("speculative_generate")  # the reference verifier's own call
    assert reference.stood_in("max_fn") == {}


def test_every_stub_a_learner_writes_is_withheld_with_its_exercise():
    """A lesson's function that raises NotImplementedError belongs to an exercise of its module
    (``functions`` or ``helpers``): otherwise a grading runner would hold its reference. The
    lessons as written from solutions/, so a learner's own stubs in lessons/ are theirs."""
    for file, source in release.lessons().items():
        module = file.removesuffix(".py")
        withheld = {name for e in exercises.EXERCISES if e.module == module for name in e.withheld}
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and "NotImplementedError" in ast.unparse(node):
                assert node.name in withheld, f"lessons/{file}: {node.name}"
